// AscendOptimizer CPU twin: runner (manifest -> tiling -> blocks -> outputs, findings, trace, result.json).
#include <csignal>
#include <cxxabi.h>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "ascendopt_twin/runner.h"
#include "host_registry.h"
#include "twin_internal.h"

namespace ascendopt_twin {
namespace {

using rt::G;

struct TensorSpec {
    std::string name, dtype, path;
    std::string ir;  // the IR input or output it is an instance of: its own name, or its list's (`dynamic_*`)
    std::vector<int64_t> dims;
    ge::DataType ge = ge::DT_UNDEFINED;
    size_t esize = 0;
    uint64_t bytes = 0;
    // Outputs only: `alias`, the index of the input whose buffer this output is (-1: a buffer of its own);
    // `argument`, whether the kernel takes a parameter for it; `infer`, sized by the OpDef's InferShape.
    long alias = -1;
    // `unchecked`: nothing compares it (`unchecked NAME` after its line): left unwritten, a warning.
    bool argument = true, infer = false, unchecked = false;
};
// An optional input the case leaves out: a null kernel argument before input `at`.
struct AbsentSpec {
    std::string name;
    size_t at = 0;
};
// A DYNAMIC input or output: `count` consecutive inputs (outputs) from `first` form one list (one kernel argument).
struct ListSpec {
    std::string name;
    size_t first = 0, count = 0;
};
struct AttrSpec {
    std::string name, type, value;
};
struct Manifest {
    std::string opType, soc = "Ascend910B4";
    uint32_t coreAiv = 40, coreAic = 0;
    uint64_t ubSize = 196608;
    uint64_t divideValue = 0;  // what an integer division by zero in the kernel gives
    std::vector<TensorSpec> inputs, outputs;
    std::vector<ListSpec> lists, outLists;
    std::vector<AbsentSpec> absent;
    std::vector<std::string> irOrder;  // the IR inputs in order, absent ones included
    std::vector<AttrSpec> attrs;
    int64_t blockDim = -1;
    int64_t tilingKey = -1;
    std::string trace, findings, result, sourceRoot;
    bool autoSync = true;
    bool tilingOnly = false;  // stop after the tiling program (the episode's pre-check)
    // `shape_out N NAME…`: the OpDef's N outputs get one shape-out argument; NAME… (IR outputs, by OpDef
    // position) are those whose shape the kernel computes (OutputShapeDependOnCompute).
    size_t shapeOutSlots = 0;
    std::vector<std::pair<size_t, std::string>> shapeOut;
};

std::string ShapeText(const gert::Shape &s)
{
    std::string out = "[";
    for (size_t i = 0; i < s.GetDimNum(); ++i) out += (i ? ", " : "") + std::to_string(s.GetDim(i));
    return out + "]";
}

bool DtypeInfo(const std::string &d, ge::DataType &g, size_t &sz)
{
    struct E { const char *n; ge::DataType g; size_t s; };
    static const E t[] = {{"float16", ge::DT_FLOAT16, 2}, {"half", ge::DT_FLOAT16, 2},   {"float32", ge::DT_FLOAT, 4},
                          {"float", ge::DT_FLOAT, 4},     {"bfloat16", ge::DT_BF16, 2},  {"int8", ge::DT_INT8, 1},
                          {"int16", ge::DT_INT16, 2},     {"int32", ge::DT_INT32, 4},    {"int64", ge::DT_INT64, 8},
                          {"uint8", ge::DT_UINT8, 1},     {"uint16", ge::DT_UINT16, 2},  {"uint32", ge::DT_UINT32, 4},
                          {"uint64", ge::DT_UINT64, 8},   {"bool", ge::DT_BOOL, 1},      {"float64", ge::DT_DOUBLE, 8},
                          {"double", ge::DT_DOUBLE, 8},   {"complex64", ge::DT_COMPLEX64, 8}};
    for (const E &e : t)
        if (d == e.n) { g = e.g; sz = e.s; return true; }
    return false;
}

struct RunError {
    int code;
    std::string status, message;
};
[[noreturn]] void Fail(int code, const char *status, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    throw RunError{code, status, buf};
}

}  // namespace
}  // namespace ascendopt_twin

// What a host source left out of this build would have defined (evaluation/cpu_twin/stand_ins.py):
// reaching it stops the tiling, naming the function.
extern "C" [[noreturn]] void ascendopt_twin_left_out(const char *symbol, const char *sources)
{
    int status = 0;
    char *name = abi::__cxa_demangle(symbol, nullptr, nullptr, &status);
    std::string shown = status == 0 && name != nullptr ? name : symbol;
    std::free(name);
    ascendopt_twin::Fail(2, "tiling_failed",
                         "the tiling program reached %s, defined only in %s, which the CPU twin left out of this build "
                         "(950 code it cannot build)",
                         shown.c_str(), sources);
}

namespace ascendopt_twin {
namespace {
std::string RestAfter(const std::string &line, size_t nFields)
{
    size_t pos = 0;
    for (size_t i = 0; i < nFields; ++i) {
        pos = line.find(' ', pos);
        if (pos == std::string::npos) return "";
        ++pos;
    }
    return line.substr(pos);
}

Manifest ParseManifest(const char *path)
{
    FILE *f = std::fopen(path, "rb");
    if (!f) Fail(3, "runner_error", "cannot open manifest %s", path);
    Manifest m;
    std::string content;
    char buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) content.append(buf, n);
    std::fclose(f);
    std::istringstream in(content);
    std::string line;
    int lineNo = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty() || line[0] == '#') continue;
        std::istringstream ls(line);
        std::string key;
        ls >> key;
        if (key == "op_type") ls >> m.opType;
        else if (key == "soc") ls >> m.soc;
        else if (key == "core_num_aiv") ls >> m.coreAiv;
        else if (key == "core_num_aic") ls >> m.coreAic;
        else if (key == "ub_size") ls >> m.ubSize;
        else if (key == "divide_value") ls >> m.divideValue;
        else if (key == "block_dim") ls >> m.blockDim;
        else if (key == "tiling_key") ls >> m.tilingKey;
        else if (key == "tiling_only") { std::string v; ls >> v; m.tilingOnly = !(v == "0" || v == "false"); }
        else if (key == "auto_sync") { std::string v; ls >> v; m.autoSync = !(v == "off" || v == "0" || v == "false"); }
        else if (key == "trace") m.trace = RestAfter(line, 1);
        else if (key == "findings") m.findings = RestAfter(line, 1);
        else if (key == "result") m.result = RestAfter(line, 1);
        else if (key == "source_root") m.sourceRoot = RestAfter(line, 1);
        else if (key == "input" || key == "output") {
            TensorSpec t;
            size_t ndim = 0;
            std::string rank;
            ls >> t.name >> t.dtype >> rank;
            if (!ls) Fail(3, "runner_error", "manifest line %d: malformed %s", lineNo, key.c_str());
            t.infer = key == "output" && rank == "infer";
            if (!t.infer) {
                char *end = nullptr;
                ndim = std::strtoul(rank.c_str(), &end, 10);
                if (rank.empty() || *end) Fail(3, "runner_error", "manifest line %d: malformed rank %s", lineNo, rank.c_str());
            }
            t.dims.resize(ndim);
            for (size_t i = 0; i < ndim; ++i) ls >> t.dims[i];
            if (!ls) Fail(3, "runner_error", "manifest line %d: malformed dims", lineNo);
            t.path = RestAfter(line, 4 + ndim);
            if (!DtypeInfo(t.dtype, t.ge, t.esize)) Fail(3, "runner_error", "manifest line %d: unknown dtype %s", lineNo, t.dtype.c_str());
            uint64_t numel = 1;
            for (int64_t d : t.dims) numel *= static_cast<uint64_t>(d < 0 ? 0 : d);
            t.bytes = numel * t.esize;
            t.ir = t.name;
            std::vector<TensorSpec> &ts = key == "input" ? m.inputs : m.outputs;
            const std::vector<ListSpec> &ls_ = key == "input" ? m.lists : m.outLists;
            if (!ls_.empty() && ts.size() < ls_.back().first + ls_.back().count) t.ir = ls_.back().name;
            if (key == "input" && (m.irOrder.empty() || m.irOrder.back() != t.ir)) m.irOrder.push_back(t.ir);
            ts.push_back(t);
        } else if (key == "dynamic_input" || key == "dynamic_output") {
            const bool in = key == "dynamic_input";
            std::vector<ListSpec> &lists = in ? m.lists : m.outLists;
            ListSpec l;
            ls >> l.name >> l.count;
            if (!ls || l.count == 0) Fail(3, "runner_error", "manifest line %d: malformed %s", lineNo, key.c_str());
            l.first = (in ? m.inputs : m.outputs).size();
            if (!lists.empty() && lists.back().first + lists.back().count > l.first)
                Fail(3, "runner_error", "manifest line %d: %s before the previous list's tensors", lineNo, key.c_str());
            lists.push_back(l);
        } else if (key == "shape_out") {
            ls >> m.shapeOutSlots;
            size_t slot = 0;
            std::string name;
            while (ls >> slot >> name) m.shapeOut.emplace_back(slot, name);
            if (m.shapeOutSlots == 0 || m.shapeOut.empty() || m.shapeOutSlots > 64)
                Fail(3, "runner_error", "manifest line %d: malformed shape_out", lineNo);
            for (const auto &o : m.shapeOut)
                if (o.first >= m.shapeOutSlots) Fail(3, "runner_error", "manifest line %d: shape_out slot %zu of %zu", lineNo, o.first, m.shapeOutSlots);
        } else if (key == "absent_input") {
            AbsentSpec a;
            ls >> a.name;
            if (!ls) Fail(3, "runner_error", "manifest line %d: malformed absent_input", lineNo);
            a.at = m.inputs.size();
            m.absent.push_back(a);
            m.irOrder.push_back(a.name);
        } else if (key == "alias") {
            // alias OUTPUT INPUT argument|no_argument: the output is the input's buffer.
            std::string out, in, arg;
            ls >> out >> in >> arg;
            if (!ls || (arg != "argument" && arg != "no_argument") || m.outputs.empty() || m.outputs.back().name != out)
                Fail(3, "runner_error", "manifest line %d: malformed alias (after the output line it names)", lineNo);
            TensorSpec &o = m.outputs.back();
            // A list output's tensor aliases the list input's tensor of its index (`alias y.1 x.1`).
            for (size_t i = 0; i < m.inputs.size(); ++i)
                if (m.inputs[i].name == in && (m.inputs[i].ir == in) == (o.ir == o.name)) o.alias = static_cast<long>(i);
            if (o.alias < 0) Fail(3, "runner_error", "manifest line %d: alias of %s names no input %s", lineNo, out.c_str(), in.c_str());
            const TensorSpec &src = m.inputs[static_cast<size_t>(o.alias)];
            if (!o.infer && o.bytes != src.bytes)
                Fail(3, "runner_error", "output %s (%llu B) aliases input %s (%llu B): one buffer, one size", out.c_str(),
                     static_cast<unsigned long long>(o.bytes), in.c_str(), static_cast<unsigned long long>(src.bytes));
            o.argument = arg == "argument";
            if (o.infer) { o.infer = false; o.dims = src.dims; o.bytes = src.bytes; }
        } else if (key == "unchecked") {
            std::string out;
            ls >> out;
            if (!ls || m.outputs.empty() || m.outputs.back().name != out)
                Fail(3, "runner_error", "manifest line %d: malformed unchecked (after the output line it names)", lineNo);
            m.outputs.back().unchecked = true;
        } else if (key == "attr") {
            AttrSpec a;
            ls >> a.name >> a.type;
            a.value = RestAfter(line, 3);
            m.attrs.push_back(a);
        } else {
            std::fprintf(stderr, "ascendopt-twin: manifest line %d: unknown directive '%s' ignored\n", lineNo, key.c_str());
        }
    }
    for (const ListSpec &l : m.lists)
        if (l.first + l.count > m.inputs.size())
            Fail(3, "runner_error", "manifest: dynamic_input %s announces %zu inputs, %zu follow", l.name.c_str(), l.count,
                 m.inputs.size() - l.first);
    for (const ListSpec &l : m.outLists)
        if (l.first + l.count > m.outputs.size())
            Fail(3, "runner_error", "manifest: dynamic_output %s announces %zu outputs, %zu follow", l.name.c_str(), l.count,
                 m.outputs.size() - l.first);
    if (m.coreAic == 0) m.coreAic = m.coreAiv / 2 ? m.coreAiv / 2 : 1;
    return m;
}

uint8_t *AllocGm(const std::string &name, uint64_t size, int kind, uint8_t fill)
{
    uint8_t *p = rt::GmAllocate(name, size, kind, fill);
    if (!p) Fail(3, "runner_error", "out of memory allocating %llu B for %s", static_cast<unsigned long long>(size), name.c_str());
    return p;
}

// The GM block a kernel gets for a list input or output, in the layout ListTensorDesc parses (ascendopt_twin/list_tensor.h):
// the byte offset of the data pointers, then per tensor `dim | index << 32` and its dims, then the data pointers.
// Each tensor's data stays in its own GM buffer (bounds, writes and races are checked per tensor).
uint8_t *ListBlock(const ListSpec &l, const std::vector<TensorSpec> &tensors, const std::vector<uint8_t *> &bufs)
{
    std::vector<uint64_t> w(1, 0);
    for (size_t i = 0; i < l.count; ++i) {
        const TensorSpec &t = tensors[l.first + i];
        w.push_back(static_cast<uint64_t>(t.dims.size()) | (static_cast<uint64_t>(i) << 32));
        for (int64_t d : t.dims) w.push_back(static_cast<uint64_t>(d));
    }
    w[0] = w.size() * sizeof(uint64_t);
    for (size_t i = 0; i < l.count; ++i) w.push_back(reinterpret_cast<uintptr_t>(bufs[l.first + i]));
    uint8_t *p = AllocGm(l.name + "(list)", w.size() * sizeof(uint64_t), 0, 0);
    std::memcpy(p, w.data(), w.size() * sizeof(uint64_t));
    return p;
}

// ------------------------------------------------------------------ output files
std::string Hex(const uint8_t *p, size_t n)
{
    static const char *d = "0123456789abcdef";
    std::string s;
    s.reserve(n * 2);
    for (size_t i = 0; i < n; ++i) { s += d[p[i] >> 4]; s += d[p[i] & 15]; }
    return s;
}

struct ResultInfo {
    std::string status = "runner_error", message;
    int64_t blockDim = 0;
    uint64_t tilingKey = 0, workspace = 0;
    std::string tilingHex;
    uint32_t ubBytes = 0;
    int aborted = 0;
    bool mix = false;  // each block ran as 1 AIC + 2 AIV (trace block ids are cores 3b + k)
};
std::string g_resultPath, g_findingsPath;
ResultInfo g_res;

void WriteResult()
{
    size_t errors = 0, warnings = 0;
    for (const rt::Finding &x : G.findings) (x.error ? errors : warnings)++;
    std::string o = "{\"status\":\"" + g_res.status + "\",\"block_dim\":" + std::to_string(g_res.blockDim) +
                    ",\"tiling_key\":" + std::to_string(g_res.tilingKey) + ",\"workspace_size\":" + std::to_string(g_res.workspace) +
                    ",\"tiling_data_hex\":\"" + g_res.tilingHex + "\",\"ub_bytes_per_block\":" + std::to_string(g_res.ubBytes) +
                    ",\"blocks_aborted\":" + std::to_string(g_res.aborted) + (g_res.mix ? ",\"cores_per_block\":3" : "") +
                    ",\"findings_errors\":" + std::to_string(errors) +
                    ",\"findings_warnings\":" + std::to_string(warnings) + ",\"trace_format_version\":1,\"message\":\"";
    rt::JsonEscape(o, g_res.message);
    o += "\"}\n";
    rt::Deliver("result.json", g_resultPath, o.data(), o.size());
}

// The run's end, whichever way it ends: findings and result delivered, then _exit (rt::Seal).
[[noreturn]] void Conclude(int code)
{
    rt::WriteFindings(g_findingsPath);
    WriteResult();
    rt::Seal(code);
}

void OnCrash(int sig)
{
    static volatile sig_atomic_t once = 0;
    if (once) _exit(128 + sig);
    once = 1;
    char buf[512];
    rt::CrashMessage(sig, buf, sizeof buf);
    g_res.status = "kernel_error";
    g_res.message = buf;
    Conclude(0);
}

}  // namespace

int RunnerMain(int argc, char **argv, LaunchFn launch, LaunchFn aic)
{
    rt::GuardSyscalls();
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s manifest.txt\n", argv[0]);
        return 3;
    }
    std::vector<uint8_t *> args;
    try {
        Manifest m = ParseManifest(argv[1]);
        g_resultPath = m.result;
        g_findingsPath = m.findings;
        G.sourceRoot = m.sourceRoot;
        G.autoSync = m.autoSync;
        G.ubSize = static_cast<uint32_t>(m.ubSize);
        G.divideValue = m.divideValue;
        if (!m.trace.empty()) {
            rt::TraceOpen(m.trace);
            if (!rt::EvidenceToFd() && !G.trace) Fail(3, "runner_error", "cannot write trace %s", m.trace.c_str());
        }
        std::signal(SIGSEGV, OnCrash);
        std::signal(SIGBUS, OnCrash);
        rt::CatchArithmetic(OnCrash);

        // Inputs.
        std::vector<uint8_t *> inBufs, outBufs;
        for (size_t i = 0; i < m.inputs.size(); ++i) {
            const TensorSpec &t = m.inputs[i];
            // An input an output aliases is that output's buffer: tracked as an output (writes are its point,
            // not `input_written`), holding the input's values when the kernel starts.
            bool aliased = false;
            for (const TensorSpec &o : m.outputs) aliased = aliased || o.alias == static_cast<long>(i);
            uint8_t *p = AllocGm(t.name, t.bytes, aliased ? 1 : 0, 0);
            rt::FindGm(p)->esize = static_cast<uint32_t>(t.esize ? t.esize : 1);
            FILE *f = std::fopen(t.path.c_str(), "rb");
            if (!f) Fail(3, "runner_error", "input %s: cannot open %s", t.name.c_str(), t.path.c_str());
            size_t got = t.bytes ? std::fread(p, 1, t.bytes, f) : 0;
            int extra = std::fgetc(f);
            std::fclose(f);
            if (got != t.bytes || extra != EOF)
                Fail(3, "runner_error", "input %s: file %s does not hold exactly %llu B", t.name.c_str(), t.path.c_str(),
                     static_cast<unsigned long long>(t.bytes));
            inBufs.push_back(p);
        }

        // Tiling context.
        fe::PlatFormInfos &plat = host::Platform();
        plat.twinCoreNumAiv = m.coreAiv;
        plat.twinCoreNumAic = m.coreAic;
        plat.twinUbSize = m.ubSize;
        plat.twinSoc = m.soc;
        gert::TilingContext ctx;
        ctx.opType_ = m.opType;
        ctx.platform_ = &plat;
        for (size_t i = 0; i < m.inputs.size(); ++i) {
            const TensorSpec &t = m.inputs[i];
            gert::StorageShape s;
            for (int64_t d : t.dims) { s.MutableOriginShape().AppendDim(d); s.MutableStorageShape().AppendDim(d); }
            ctx.inShapes_.push_back(s);
            gert::CompileTimeTensorDesc desc;
            desc.dtype_ = t.ge;
            ctx.inDescs_.push_back(desc);
            gert::Tensor tt;
            tt.shape_ = s;
            tt.dtype_ = t.ge;
            tt.data_ = inBufs[i];
            tt.size_ = t.bytes;
            ctx.inTensors_.push_back(tt);
            ctx.inNames_.push_back(t.ir);
        }
        // The node's outputs are those the kernel takes a parameter for (an output written into its input
        // with no parameter of its own is no OpDef output).
        std::vector<TensorSpec *> argOuts;
        for (TensorSpec &t : m.outputs)
            if (t.argument) argOuts.push_back(&t);
        for (const AttrSpec &a : m.attrs) {
            gert::RuntimeAttrs::Value v;
            if (a.type == "float") { v.kind = 0; v.f = std::strtof(a.value.c_str(), nullptr); }
            else if (a.type == "int") { v.kind = 1; v.i = std::strtoll(a.value.c_str(), nullptr, 10); }
            else if (a.type == "bool") { v.kind = 2; v.b = a.value == "true" || a.value == "1" || a.value == "True"; }
            else if (a.type == "list_int") {  // the values, space-separated
                v.kind = 4;
                std::istringstream vs(a.value);
                for (long long x; vs >> x;) v.li.v_.push_back(x);
            }
            else { v.kind = 3; v.s = a.value; }
            ctx.attrs_.v_.push_back(v);
        }
        std::vector<uint8_t> rawTiling(64 * 1024, 0);
        ctx.raw_.data_ = rawTiling.data();
        ctx.raw_.capacity_ = rawTiling.size();

        host::OpRecord *rec = nullptr;
        auto &ops = host::Ops();
        if (!m.opType.empty()) {
            auto it = ops.find(m.opType);
            if (it != ops.end()) rec = &it->second;
        }
        gert::OpImplRegisterV2::TilingKernelFunc tilingFn = nullptr;
        if (rec) {
            tilingFn = rec->tiling ? rec->tiling : (rec->def ? rec->def->aicore_.tiling_ : nullptr);
            if (rec->def) {
                const ops::OpDef &d = *rec->def;
                for (const ops::OpParamDef *p : d.inputs_) ctx.irInputNames_.push_back(p->name_);
                for (const AbsentSpec &a : m.absent) {
                    bool known = false;
                    for (const ops::OpParamDef *p : d.inputs_) known = known || (p->name_ == a.name && p->type_ == ops::OPTIONAL);
                    if (!known) Fail(3, "runner_error", "absent input %s: the OpDef of %s declares no optional input of that name", a.name.c_str(), m.opType.c_str());
                }
                // Attrs the manifest does not give take the OpDef defaults.
                for (size_t i = ctx.attrs_.v_.size(); i < d.attrs_.size(); ++i) {
                    gert::RuntimeAttrs::Value v;
                    const ops::OpAttrDef &a = *d.attrs_[i];
                    v.kind = a.kind_; v.f = a.f_; v.i = a.i_; v.b = a.b_; v.s = a.s_; v.li.v_ = a.li_; v.lf = a.lf_;
                    ctx.attrs_.v_.push_back(v);
                }
                // Dtype coverage of the OpDef (each tensor against the OpDef parameter it instantiates).
                auto checkList = [&](const std::vector<ops::OpParamDef *> &params, const std::vector<TensorSpec> &ts, const char *what) {
                    for (size_t i = 0; i < ts.size(); ++i) {
                        const ops::OpParamDef *param = nullptr;
                        for (const ops::OpParamDef *p : params) param = param ? param : (p->name_ == ts[i].ir ? p : nullptr);
                        if (!param && i < params.size() && what[0] == 'o') param = params[i];
                        if (!param || param->dtypes_.empty()) continue;
                        bool found = false;
                        for (auto x : param->dtypes_) found = found || x == ts[i].ge;
                        if (!found)
                            rt::Report("dtype_not_in_opdef", false, nullptr, 0, "%s %s has dtype %s, which the OpDef of %s does not list",
                                       what, ts[i].name.c_str(), ts[i].dtype.c_str(), m.opType.c_str());
                    }
                };
                checkList(d.inputs_, m.inputs, "input");
                std::vector<TensorSpec> outs;
                for (const TensorSpec *t : argOuts) outs.push_back(*t);
                checkList(d.outputs_, outs, "output");
            }
        }
        // No OpDef: the IR inputs as the manifest orders them (an absent one keeps its place).
        if (ctx.irInputNames_.empty() && !m.absent.empty()) ctx.irInputNames_ = m.irOrder;
        // The op's InferShape: the OpDef's SetInferShape, else IMPL_OP_INFERSHAPE's.
        gert::OpImplRegisterV2::InferShapeKernelFunc inferShape =
            rec ? (rec->def && rec->def->inferShape_ ? rec->def->inferShape_ : rec->inferShape) : nullptr;
        // An output nothing compares is sized as CANN sizes outputs: by the op's InferShape.
        bool inferNeeded = false;
        for (const TensorSpec *t : argOuts) inferNeeded = inferNeeded || t->infer;
        if (inferNeeded) {
            if (!inferShape)
                Fail(3, "runner_error", "an output with no expected value needs the op's InferShape for its shape; %s has none",
                     m.opType.c_str());
            gert::InferShapeContext ic;
            for (auto &s : ctx.inShapes_) ic.in_.push_back(s.GetStorageShape());
            ic.names_ = ctx.inNames_;
            ic.ir_ = ctx.irInputNames_;
            ic.out_.resize(argOuts.size());
            ic.attrs_ = &ctx.attrs_;
            if (inferShape(&ic) != ge::GRAPH_SUCCESS)
                Fail(2, "tiling_failed", "the InferShape function of %s failed (it sizes the outputs nothing compares)", m.opType.c_str());
            for (size_t i = 0; i < argOuts.size(); ++i) {
                TensorSpec &t = *argOuts[i];
                if (!t.infer) continue;
                t.dims.clear();
                uint64_t numel = 1;
                for (size_t k = 0; k < ic.out_[i].GetDimNum(); ++k) {
                    t.dims.push_back(ic.out_[i].GetDim(k));
                    numel *= static_cast<uint64_t>(t.dims.back() < 0 ? 0 : t.dims.back());
                }
                t.bytes = numel * t.esize;
            }
        }
        for (const TensorSpec *t : argOuts) {
            gert::StorageShape s;
            for (int64_t d : t->dims) { s.MutableOriginShape().AppendDim(d); s.MutableStorageShape().AppendDim(d); }
            ctx.outShapes_.push_back(s);
            gert::CompileTimeTensorDesc desc;
            desc.dtype_ = t->ge;
            ctx.outDescs_.push_back(desc);
        }
        int64_t blockDim = -1;
        uint64_t tilingKey = 0;
        size_t tilingSize = 0;
        size_t workspace = 0;
        if (tilingFn && rec->tilingParse && rec->makeCompileInfo) {
            gert::TilingParseContext pc;
            pc.platform_ = &plat;
            pc.info_ = rec->makeCompileInfo();  // lives until the runner exits, as CANN keeps it per op
            ge::graphStatus st = rec->tilingParse(&pc);
            if (st != ge::GRAPH_SUCCESS) Fail(2, "tiling_failed", "the TilingParse function of %s returned %u", m.opType.c_str(), st);
            ctx.compileInfo_ = pc.info_;
        }
        if (tilingFn) {
            ge::graphStatus st = tilingFn(&ctx);
            if (st != ge::GRAPH_SUCCESS) Fail(2, "tiling_failed", "the tiling function of %s returned %u", m.opType.c_str(), st);
            if (ctx.blockDimSet_) blockDim = ctx.blockDim_;
            tilingKey = ctx.tilingKey_;
            tilingSize = ctx.raw_.size_ ? ctx.raw_.size_ : ctx.plainTilingSize_;
            if (tilingSize > ctx.raw_.capacity_) tilingSize = ctx.raw_.capacity_;
            for (size_t w : ctx.workspace_) workspace += w;
            // InferShape / InferDataType consistency with the manifest.
            if (rec && rec->def && rec->def->inferShape_) {
                gert::InferShapeContext ic;
                for (auto &s : ctx.inShapes_) ic.in_.push_back(s.GetStorageShape());
                ic.inDescs_ = ctx.inDescs_;
                ic.names_ = ctx.inNames_;
                ic.ir_ = ctx.irInputNames_;
                ic.out_.resize(argOuts.size());
                ic.attrs_ = &ctx.attrs_;
                if (rec->def->inferShape_(&ic) == ge::GRAPH_SUCCESS) {
                    for (size_t i = 0; i < argOuts.size(); ++i)
                        if (!(ic.out_[i] == ctx.outShapes_[i].GetStorageShape()))
                            rt::Report("infer_shape_mismatch", false, nullptr, 0,
                                       "InferShape of %s gives output %s the shape %s, the reference returned %s: the "
                                       "twin sizes outputs by the reference's shapes, so a kernel writing the "
                                       "InferShape size goes out of bounds",
                                       m.opType.c_str(), argOuts[i]->name.c_str(), ShapeText(ic.out_[i]).c_str(),
                                       ShapeText(ctx.outShapes_[i].GetStorageShape()).c_str());
                }
            }
            if (rec && rec->def && rec->def->inferDataType_) {
                gert::InferDataTypeContext dc;
                for (auto &d : ctx.inDescs_) dc.in_.push_back(d.dtype_);
                dc.names_ = ctx.inNames_;
                dc.ir_ = ctx.irInputNames_;
                dc.out_.assign(argOuts.size(), ge::DT_UNDEFINED);
                dc.attrs_ = &ctx.attrs_;
                if (rec->def->inferDataType_(&dc) == ge::GRAPH_SUCCESS) {
                    for (size_t i = 0; i < argOuts.size(); ++i)
                        if (dc.out_[i] != ge::DT_UNDEFINED && dc.out_[i] != argOuts[i]->ge)
                            rt::Report("infer_dtype_mismatch", false, nullptr, 0, "InferDataType of %s gives output %s a different dtype than %s",
                                       m.opType.c_str(), argOuts[i]->name.c_str(), argOuts[i]->dtype.c_str());
                }
            }
        } else if (m.blockDim < 0) {
            std::string known;
            for (auto &kv : ops) known += (known.empty() ? "" : ", ") + kv.first;
            Fail(2, "tiling_failed", "no tiling function is registered for op type '%s' (registered: %s) and the manifest gives no block_dim",
                 m.opType.c_str(), known.empty() ? "none" : known.c_str());
        }
        if (m.blockDim >= 0) blockDim = m.blockDim;
        if (m.tilingKey >= 0) tilingKey = static_cast<uint64_t>(m.tilingKey);
        if (blockDim < 0) Fail(2, "tiling_failed", "the tiling function of %s never called SetBlockDim", m.opType.c_str());
        if (blockDim == 0) Fail(2, "tiling_failed", "the tiling function of %s set block_dim 0", m.opType.c_str());
        if (blockDim > 65535) Fail(2, "tiling_failed", "block_dim %lld exceeds 65535", static_cast<long long>(blockDim));
        g_res.blockDim = blockDim;
        g_res.mix = aic != nullptr;
        g_res.tilingKey = tilingKey;
        g_res.workspace = workspace;
        g_res.tilingHex = Hex(rawTiling.data(), tilingSize);
        if (m.tilingOnly) {
            g_res.status = "ok";
            g_res.message = "tiling program only";
            Conclude(0);
        }

        // Outputs (poisoned with 0xFF so that unwritten elements stand out), workspace, tiling.
        // An aliased output is its input's buffer.
        for (const TensorSpec &t : m.outputs) {
            if (t.alias >= 0) {
                outBufs.push_back(inBufs[static_cast<size_t>(t.alias)]);
                continue;
            }
            outBufs.push_back(AllocGm(t.name, t.bytes, 1, ctx.needAtomic_ ? 0x00 : 0xFF));
            rt::FindGm(outBufs.back())->esize = static_cast<uint32_t>(t.esize ? t.esize : 1);
        }
        uint8_t *ws = workspace ? AllocGm("workspace", workspace, 2, 0xFF) : AllocGm("workspace(empty)", 0, 2, 0);
        uint8_t *tl = AllocGm("tiling", tilingSize, 3, 0);
        std::memcpy(tl, rawTiling.data(), tilingSize);
        // Outputs whose shape the kernel computes (OutputShapeDependOnCompute): CANN passes one more argument
        // after the outputs, where the kernel writes each output's shape as 9 uint64 (rank, up to 8 dims).
        constexpr size_t kShapeWords = 9;
        uint8_t *shapeOut = m.shapeOutSlots ? AllocGm("shape_out", kShapeWords * sizeof(uint64_t) * m.shapeOutSlots, 2, 0) : nullptr;
        // Kernel arguments: one per IR input (a list: its GM block; an absent optional input: null), then
        // one per IR output alike (those it takes a parameter for), workspace, tiling.
        auto absentAt = [&](size_t i) {
            for (const AbsentSpec &a : m.absent)
                if (a.at == i) args.push_back(nullptr);
        };
        auto pushArgs = [&](const std::vector<ListSpec> &lists, const std::vector<TensorSpec> &ts,
                            const std::vector<uint8_t *> &bufs, bool in) {
            for (size_t i = 0; i < bufs.size();) {
                if (in) absentAt(i);
                const ListSpec *list = nullptr;
                for (const ListSpec &l : lists) list = l.first == i ? &l : list;
                if (list) {
                    if (ts[i].argument) args.push_back(ListBlock(*list, ts, bufs));
                    i += list->count;
                } else {
                    if (ts[i].argument) args.push_back(bufs[i]);
                    ++i;
                }
            }
            if (in) absentAt(bufs.size());
        };
        pushArgs(m.lists, m.inputs, inBufs, true);
        pushArgs(m.outLists, m.outputs, outBufs, false);
        if (shapeOut) args.push_back(shapeOut);
        args.push_back(ws);
        args.push_back(tl);

        uint8_t **argv_ = args.data();
        std::function<void()> cube;
        if (aic) cube = [aic, argv_] { aic(argv_); };
        int aborted = rt::RunBlocks(static_cast<int>(blockDim), [launch, argv_] { launch(argv_); }, static_cast<uint32_t>(m.ubSize), tilingKey,
                                    static_cast<uint32_t>(tilingSize), cube);
        g_res.aborted = aborted;
        g_res.ubBytes = G.ubHighMax;

        // Unwritten outputs.
        for (size_t i = 0; i < m.outputs.size(); ++i) {
            rt::GmBuf *g = rt::FindGm(outBufs[i]);
            // An aliased output's bytes the kernel leaves keep the input's values, as they may.
            if (!g || g->size == 0 || m.outputs[i].alias >= 0) continue;
            uint64_t missing = 0, first = 0;
            for (uint64_t k = 0; k < g->size; ++k)
                if (g->wtag[k] == 0) { if (missing++ == 0) first = k; }
            // A byte stored through a raw pointer is seen only when it changed: one stored with the fill's own value
            // cannot be told from an unwritten one. Where the kernel did store into this output that way, the rest
            // is a warning (the output comparison judges the values; an unwritten float reads as NaN there).
            bool raw = g->rawBytes > 0;
            if (missing)
                rt::Report("output_not_written", !ctx.needAtomic_ && !raw && !m.outputs[i].infer && !m.outputs[i].unchecked, nullptr, 0,
                           "output %s: %llu of %llu bytes were never written by any block (first: element %llu)%s", m.outputs[i].name.c_str(),
                           static_cast<unsigned long long>(missing), static_cast<unsigned long long>(g->size),
                           static_cast<unsigned long long>(first / m.outputs[i].esize),
                           raw ? "; the kernel stores into it through a raw GM pointer, and a byte stored that way with the value the output "
                                 "was filled with (0xFF) cannot be told from an unwritten one"
                               : "");
        }
        // The shape each computed-shape output was given must be the shape its expected value has (the
        // framework would size the output by it).
        for (const auto &computed : m.shapeOut) {
            const TensorSpec *t = nullptr;
            for (const TensorSpec &o : m.outputs) t = t ? t : (o.ir == computed.second ? &o : nullptr);
            if (!t || t->infer) continue;
            const uint64_t *w = reinterpret_cast<const uint64_t *>(shapeOut) + computed.first * kShapeWords;
            bool same = w[0] == t->dims.size();
            for (size_t k = 0; same && k < t->dims.size() && k + 1 < kShapeWords; ++k) same = w[k + 1] == static_cast<uint64_t>(t->dims[k]);
            if (!same) {
                std::string wrote = "[", want = "[";
                for (uint64_t k = 0; k < w[0] && k + 1 < kShapeWords; ++k) wrote += (k ? ", " : "") + std::to_string(w[k + 1]);
                for (size_t k = 0; k < t->dims.size(); ++k) want += (k ? ", " : "") + std::to_string(t->dims[k]);
                rt::Report("shape_out_mismatch", true, nullptr, 0,
                           "output %s: the kernel wrote shape %s%s (rank %llu) to its shape-out argument; the expected output is %s]",
                           t->name.c_str(), wrote.c_str(), w[0] < kShapeWords ? "]" : "...]", static_cast<unsigned long long>(w[0]), want.c_str());
            }
        }
        if (aic && blockDim > static_cast<int64_t>(m.coreAic))
            rt::Report("mix_block_dim_exceeds_cores", false, nullptr, 0,
                       "a mixed kernel with block_dim %lld > %u AI Cores (each block one cube core and two vector cores): its blocks run "
                       "in waves, so cross-core flags between blocks of different waves wait forever on the NPU",
                       static_cast<long long>(blockDim), m.coreAic);
        if (blockDim > static_cast<int64_t>(aic ? m.coreAic : m.coreAiv) && G.phase > 0)
            rt::Report("syncall_block_dim_exceeds_cores", true, nullptr, 0,
                       "SyncAll (or a mode-0 CrossCoreSetFlag round) with block_dim %lld > %u vector cores: not all blocks are resident at once, so the NPU deadlocks",
                       static_cast<long long>(blockDim), m.coreAiv);

        for (size_t i = 0; i < m.outputs.size(); ++i) {
            const std::string &path = m.outputs[i].path;
            rt::Deliver(path.substr(path.find_last_of('/') + 1), path, outBufs[i], m.outputs[i].bytes);
        }
        g_res.status = aborted ? "kernel_error" : "ok";
        g_res.message = aborted ? std::to_string(aborted) + " block(s) stopped on a fatal finding (see findings)" : "";
        Conclude(0);
    } catch (const RunError &e) {
        g_res.status = e.status;
        g_res.message = e.message;
        std::fprintf(stderr, "ascendopt-twin: %s: %s\n", e.status.c_str(), e.message.c_str());
        Conclude(e.code);
    }
}

}  // namespace ascendopt_twin
