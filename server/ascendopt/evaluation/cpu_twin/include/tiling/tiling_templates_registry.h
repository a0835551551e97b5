// AscendOptimizer CPU twin: the open operator repos' tiling-template registry (cann-ops
// `tiling/tiling_templates_registry.h`), written from its use in the repos and their docs.
// REGISTER_TILING_TEMPLATE("Op", Class, priority) adds a TilingBaseClass subclass for the op type; the op's
// tiling function calls TilingRegistry::GetInstance().DoTilingImpl(context), which builds each class of the
// context's node type in ascending priority (smaller first) and runs its DoTiling: the first status other than
// GRAPH_PARAM_INVALID (the class is not capable) is the result; when every class declines, GRAPH_FAILED with
// an error naming the op. A second class at a priority already taken is refused with an error (the first
// stays), as the repos' registry does.
#ifndef ASCENDOPT_TWIN_TILING_TILING_TEMPLATES_REGISTRY_H
#define ASCENDOPT_TWIN_TILING_TILING_TEMPLATES_REGISTRY_H

#include <cstdint>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "error/ops_error.h"
#include "tiling/tiling_base.h"

namespace optiling {
template <typename T> std::unique_ptr<TilingBaseClass> TILING_CLASS(gert::TilingContext *context)
{
    return std::unique_ptr<T>(new (std::nothrow) T(context));
}
using TilingClassCase = std::unique_ptr<TilingBaseClass> (*)(gert::TilingContext *);

// One op type's classes by priority.
class TilingCases {
public:
    explicit TilingCases(std::string opType) : opType_(std::move(opType)) {}
    template <typename T> void AddTiling(int32_t priority)
    {
        OPS_ERR_IF(cases_.count(priority) != 0,
                   OPS_REPORT_VECTOR_INNER_ERR(opType_, "tiling template priority %d is registered twice", priority),
                   return);
        cases_[priority] = TILING_CLASS<T>;
    }
    const std::map<int32_t, TilingClassCase> &GetTilingCases() const { return cases_; }

private:
    std::map<int32_t, TilingClassCase> cases_;
    std::string opType_;
};

class TilingRegistry {
public:
    // One registry per process, filled by the static registrations of every host source.
    static TilingRegistry &GetInstance()
    {
        static TilingRegistry registry;
        return registry;
    }
    std::shared_ptr<TilingCases> RegisterOp(const std::string &opType)
    {
        std::shared_ptr<TilingCases> &cases = ops_[opType];
        if (cases == nullptr) cases = std::make_shared<TilingCases>(opType);
        return cases;
    }
    ge::graphStatus DoTilingImpl(gert::TilingContext *context)
    {
        if (context == nullptr) return ge::GRAPH_FAILED;
        const char *opType = context->GetNodeType();
        for (const auto &entry : GetTilingTemplates(opType)) {
            std::unique_ptr<TilingBaseClass> tiling = entry.second(context);
            if (tiling == nullptr) continue;
            const ge::graphStatus status = tiling->DoTiling();
            if (status != ge::GRAPH_PARAM_INVALID) {
                OPS_LOG_D(context, "tiling template of priority %d: status %u", entry.first,
                          static_cast<uint32_t>(status));
                return status;
            }
            OPS_LOG_D(context, "tiling template of priority %d is not capable", entry.first);
        }
        OPS_REPORT_VECTOR_INNER_ERR(opType, "Do op tiling failed, no valid template is found (%zu registered)",
                                    GetTilingTemplates(opType).size());
        return ge::GRAPH_FAILED;
    }
    // Only the listed priorities, in the listed order; the first GRAPH_SUCCESS is the result.
    ge::graphStatus DoTilingImpl(gert::TilingContext *context, const std::vector<int32_t> &priorities)
    {
        if (context == nullptr) return ge::GRAPH_FAILED;
        const std::map<int32_t, TilingClassCase> &cases = GetTilingTemplates(context->GetNodeType());
        for (int32_t priority : priorities) {
            auto found = cases.find(priority);
            if (found == cases.end()) {
                OPS_LOG_E(context, "no tiling template of priority %d is registered", priority);
                continue;
            }
            std::unique_ptr<TilingBaseClass> tiling = found->second(context);
            if (tiling != nullptr && tiling->DoTiling() == ge::GRAPH_SUCCESS) return ge::GRAPH_SUCCESS;
            OPS_LOG_D(context, "tiling template of priority %d did not tile", priority);
        }
        return ge::GRAPH_FAILED;
    }
    const std::map<int32_t, TilingClassCase> &GetTilingTemplates(const std::string &opType)
    {
        auto found = ops_.find(opType);
        if (found == ops_.end()) {
            OPS_REPORT_VECTOR_INNER_ERR(opType, "no tiling template is registered for op type %s (%zu op types have one)",
                                        opType.c_str(), ops_.size());
            return none_;
        }
        return found->second->GetTilingCases();
    }

private:
    std::map<std::string, std::shared_ptr<TilingCases>> ops_;
    const std::map<int32_t, TilingClassCase> none_{};
};

class Register {
public:
    explicit Register(std::string opType) : opType_(std::move(opType)) {}
    template <typename T> Register &tiling(int32_t priority)
    {
        TilingRegistry::GetInstance().RegisterOp(opType_)->AddTiling<T>(priority);
        return *this;
    }

private:
    std::string opType_;
};
}  // namespace optiling

#define ASCENDOPT_TWIN_TILING_CAT2(a, b) a##b
#define ASCENDOPT_TWIN_TILING_CAT(a, b) ASCENDOPT_TWIN_TILING_CAT2(a, b)
// priority: smaller is tried first.
#define REGISTER_TILING_TEMPLATE(op_type, class_name, priority)                                   \
    static ::optiling::Register ASCENDOPT_TWIN_TILING_CAT(twinTilingTemplate_##class_name##_, __COUNTER__) = \
        ::optiling::Register(op_type).tiling<class_name>(priority)

#endif
