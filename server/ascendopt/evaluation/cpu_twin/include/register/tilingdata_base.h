// AscendOptimizer CPU twin: tiling-data definition macros (host: class with set_/get_ accessors; kernel: plain struct).
// Both modes produce the same memory layout (natural C++ struct layout, fields in declaration order).
#ifndef ASCENDOPT_TWIN_REGISTER_TILINGDATA_BASE_H
#define ASCENDOPT_TWIN_REGISTER_TILINGDATA_BASE_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iostream>  // as CANN's: tiling headers write std::cout unincluded
#include <map>
#include <string>
#include <vector>
#include "ascendopt_twin/tiling_reg.h"

// Tiling code in namespace optiling writes `map<ge::DataType, int32_t>` unqualified and builds with CANN
// (GeGluGradV2's op_host): the standard containers are in scope there.
namespace optiling {
using std::map;
using std::string;
using std::vector;
}  // namespace optiling

#ifdef ASCENDOPT_TWIN_KERNEL

// The op_host tiling header stands in for the struct CANN generates for the kernel, so what it declares
// besides the struct must compile here: helpers taking gert contexts (RmsNormGrad's
// `GetCompileInfoPtr(gert::TilingParseContext *)`) need the gert types, as in a host build.
#include "ascendopt_twin/host/gert_context.h"

// The accessors are there too (member functions leave the layout alone): an op_host tiling header
// the kernel sees may hold host code that fills the class (cann-ops mul_sigmoid's tiling class).
#define BEGIN_TILING_DATA_DEF(class_name)                                                   \
    struct class_name {                                                                     \
        void SaveToBuffer(void *buf, size_t capacity) const                                 \
        {                                                                                   \
            std::memcpy(buf, this, capacity < sizeof(*this) ? capacity : sizeof(*this));    \
        }                                                                                   \
        size_t GetDataSize() const { return sizeof(*this); }
#define TILING_DATA_FIELD_DEF(data_type, field_name)                                     \
    data_type field_name = data_type();                                                  \
    void set_##field_name(data_type ascendopt_v) { field_name = ascendopt_v; }           \
    data_type get_##field_name() const { return field_name; }
#define TILING_DATA_FIELD_DEF_ARR(arr_type, arr_size, field_name)                                     \
    arr_type field_name[arr_size] = {};                                                               \
    void set_##field_name(const arr_type *ascendopt_v) { std::memcpy(field_name, ascendopt_v, sizeof(field_name)); } \
    arr_type *get_##field_name() { return field_name; }
#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name) struct_type field_name
// `};`, as CANN's: a header may write END_TILING_DATA_DEF with no `;` after it (GeGluGradV2's).
#define END_TILING_DATA_DEF };
#define REGISTER_TILING_DATA_CLASS(op_type, class_name)                                      \
    template <> struct AscendoptTwinTilingReg<__COUNTER__> {                                 \
        static constexpr bool registered = true;                                             \
        using type = class_name;                                                             \
    };                                                                                       \
    struct AscendoptTwinTilingFor_##op_type {                                                \
        using type = class_name;                                                             \
    };

#else  // host

namespace ascendopt_twin {
namespace tiling {
void SaveToBuffer(const void *data, size_t size, void *buf, size_t capacity, const char *name);
// SetDataPtr: CANN's struct then lives in the raw tiling buffer, so the tiling program never calls SaveToBuffer; the
// twin's struct keeps its own storage and is copied into the buffer when the program sets the data size
// (gert::TilingData::SetDataSize), the last step such a program takes.
void SetDataPtr(const void *data, size_t size, void *buf);
struct ClassReg {
    ClassReg(const char *opType, const char *className, size_t size);
};
}  // namespace tiling
}  // namespace ascendopt_twin

#define BEGIN_TILING_DATA_DEF(class_name)                                                               \
    struct class_name {                                                                                 \
        void SaveToBuffer(void *buf, size_t capacity) const                                             \
        {                                                                                               \
            ::ascendopt_twin::tiling::SaveToBuffer(this, sizeof(*this), buf, capacity, #class_name);   \
        }                                                                                               \
        size_t GetDataSize() const { return sizeof(*this); }                                            \
        const uint8_t *GetDataPtr() const { return reinterpret_cast<const uint8_t *>(this); }           \
        void SetDataPtr(void *dataPtr) { ::ascendopt_twin::tiling::SetDataPtr(this, sizeof(*this), dataPtr); }
#define TILING_DATA_FIELD_DEF(data_type, field_name)                                     \
    data_type field_name = data_type();                                                  \
    void set_##field_name(data_type ascendopt_v) { field_name = ascendopt_v; }           \
    data_type get_##field_name() const { return field_name; }
#define TILING_DATA_FIELD_DEF_ARR(arr_type, arr_size, field_name)                                     \
    arr_type field_name[arr_size] = {};                                                               \
    void set_##field_name(const arr_type *ascendopt_v) { std::memcpy(field_name, ascendopt_v, sizeof(field_name)); } \
    arr_type *get_##field_name() { return field_name; }
#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name) struct_type field_name
#define END_TILING_DATA_DEF };
#define REGISTER_TILING_DATA_CLASS(op_type, class_name) \
    static ::ascendopt_twin::tiling::ClassReg ascendopt_twin_tiling_reg_##op_type(#op_type, #class_name, sizeof(class_name));

#endif  // ASCENDOPT_TWIN_KERNEL
#endif
