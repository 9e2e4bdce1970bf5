#include "cli/workload_options.hpp"

#include <charconv>
#include <functional>

namespace po = boost::program_options;

namespace tilescope {
namespace {

enum class Kind { text, integer, boolean };

struct Flag {
    const char* name;  // without "--"
    Kind kind;
    const char* help;
    std::function<void(WorkloadSpec&, const std::string&)> set;  // value already checked for kind
};

std::int64_t to_i64(const std::string& s) {
    std::int64_t v = 0;
    std::from_chars(s.data(), s.data() + s.size(), v);
    return v;
}

#define TS_INT_FLAG(flag, field, help) \
    Flag{flag, Kind::integer, help, [](WorkloadSpec& s, const std::string& v) { s.field = to_i64(v); }}
#define TS_TEXT_FLAG(flag, field, help) \
    Flag{flag, Kind::text, help, [](WorkloadSpec& s, const std::string& v) { s.field = v; }}
#define TS_BOOL_FLAG(flag, field, help) \
    Flag{flag, Kind::boolean, help, [](WorkloadSpec& s, const std::string& v) { s.field = v == "true"; }}

const std::vector<Flag>& flags() {
    static const std::vector<Flag> f = {
        TS_TEXT_FLAG("kernel", kernel, "attention-naive | attention-flash1 | attention-flash2 | gemm | softmax"),
        TS_TEXT_FLAG("dtype", dtype, "fp16 | bf16 | fp32 (default fp16)"),
        TS_INT_FLAG("batch", batch, "attention: batch size (default 4)"),
        TS_INT_FLAG("heads", heads, "attention: heads (default 32)"),
        TS_INT_FLAG("seq", seq, "attention: sequence length N (default 4096)"),
        TS_INT_FLAG("seq-kv", seq_kv, "attention: key/value length (default = --seq)"),
        TS_INT_FLAG("head-dim", head_dim, "attention: head dimension d in {16,32,64,128,256} (default 64)"),
        TS_BOOL_FLAG("causal", causal, "attention: causal mask (--causal, or --causal=true|false)"),
        TS_INT_FLAG("m", m, "gemm: M (default 4096)"),
        TS_INT_FLAG("n", n, "gemm: N (default 4096)"),
        TS_INT_FLAG("k", k, "gemm: K (default 4096)"),
        TS_INT_FLAG("rows", rows, "softmax: rows (default 16384)"),
        TS_INT_FLAG("cols", cols, "softmax: columns (default 4096)"),
        TS_TEXT_FLAG("variant", variant, "softmax / attention-naive: safe | online (default safe)"),
        TS_INT_FLAG("tile-m", tile_m, "tile rows: attention Br, gemm tile M, softmax rows per block"),
        TS_INT_FLAG("tile-n", tile_n, "tile cols: attention Bc, gemm tile N, softmax columns per step"),
        TS_INT_FLAG("tile-k", tile_k, "gemm / attention-naive: K depth of one step"),
        TS_INT_FLAG("stages", stages, "shared-memory pipeline stages in [1, 8]"),
        TS_INT_FLAG("warps", warps, "warps per block in [1, 32] (fused attention default Br/16)"),
        TS_TEXT_FLAG("raster", raster, "gemm: block order row | column (default row)"),
        TS_BOOL_FLAG("persistent", persistent, "persistent grid: one block per resident slot (--persistent)"),
    };
    return f;
}

Result<std::string> check_item(const Flag& f, const std::string& item) {
    const std::string flag = std::string("--") + f.name;
    if (item.empty()) return make_error(flag + " has an empty value");
    if (f.kind == Kind::integer) {
        std::int64_t v = 0;
        auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
        if (ec != std::errc() || ptr != item.data() + item.size())
            return make_error(flag + " expects an integer (got '" + item + "')");
    } else if (f.kind == Kind::boolean) {
        if (item != "true" && item != "false") return make_error(flag + " expects true or false (got '" + item + "')");
    }
    // A value no kernel family accepts (a typo, a size of 0, a tile that is not a power of two)
    // is an input error here, before it can become a row of `sweep` marked illegal.
    if (Status s = check_flag_value(flag, item); !s) return s.error();
    return item;
}

Result<std::int64_t> parse_int(const std::string& flag, const std::string& text, const std::string& whole) {
    std::int64_t v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
        return make_error(flag + ": malformed range '" + whole +
                          "' (expected start:stop:*factor or start:stop:+step with integers)");
    return v;
}

constexpr std::size_t kMaxRangeItems = 100000;

}  // namespace

std::vector<std::string> split_commas(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        out.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

Result<std::vector<std::string>> expand_values(const std::string& flag, const std::string& text, bool numeric) {
    std::vector<std::string> out;
    for (const std::string& item : split_commas(text)) {
        if (item.empty()) return make_error(flag + ": empty item in list '" + text + "'");
        const std::size_t c1 = item.find(':');
        if (c1 == std::string::npos) {
            out.push_back(item);
            continue;
        }
        if (!numeric) return make_error(flag + ": ranges are only for integer flags (got '" + item + "')");
        const std::size_t c2 = item.find(':', c1 + 1);
        if (c2 == std::string::npos || item.find(':', c2 + 1) != std::string::npos)
            return make_error(flag + ": malformed range '" + item +
                              "' (expected start:stop:*factor or start:stop:+step)");
        auto start = parse_int(flag, item.substr(0, c1), item);
        if (!start) return start.error();
        auto stop = parse_int(flag, item.substr(c1 + 1, c2 - c1 - 1), item);
        if (!stop) return stop.error();
        const std::string step_text = item.substr(c2 + 1);
        if (step_text.size() < 2 || (step_text[0] != '*' && step_text[0] != '+'))
            return make_error(flag + ": malformed range '" + item + "' (the step must be *factor or +step)");
        auto step = parse_int(flag, step_text.substr(1), item);
        if (!step) return step.error();
        if (*start > *stop) return make_error(flag + ": range '" + item + "' has start > stop");
        const bool geometric = step_text[0] == '*';
        if (geometric && (*step < 2 || *start < 1))
            return make_error(flag + ": range '" + item + "' needs a factor >= 2 and a start >= 1");
        if (!geometric && *step < 1) return make_error(flag + ": range '" + item + "' needs a step >= 1");
        for (std::int64_t v = *start; v <= *stop;) {
            if (out.size() >= kMaxRangeItems)
                return make_error(flag + ": range '" + item + "' expands to more than " +
                                  std::to_string(kMaxRangeItems) + " values");
            out.push_back(std::to_string(v));
            if (geometric ? v > *stop / *step : v > *stop - *step) break;  // next value overflows or passes stop
            v = geometric ? v * *step : v + *step;
        }
    }
    return out;
}

po::options_description workload_options(const std::string& caption, const std::set<std::string>& omit) {
    po::options_description d(caption);
    for (const Flag& f : flags()) {
        if (omit.count(f.name) != 0) continue;
        if (f.kind == Kind::boolean)
            d.add_options()(f.name, po::value<std::string>()->implicit_value("true"), f.help);
        else
            d.add_options()(f.name, po::value<std::string>(), f.help);
    }
    return d;
}

Result<WorkloadSpec> workload_spec_from(const po::variables_map& vm) {
    WorkloadSpec spec;
    for (const Flag& f : flags()) {
        if (!vm.count(f.name)) continue;
        const std::string& text = vm[f.name].as<std::string>();
        if (text.find(',') != std::string::npos || (f.kind == Kind::integer && text.find(':') != std::string::npos))
            return make_error(std::string("--") + f.name + " takes one value here (got '" + text +
                              "'); lists and ranges are for `tilescope sweep`");
        auto item = check_item(f, text);
        if (!item) return item.error();
        f.set(spec, *item);
    }
    return spec;
}

Result<std::vector<WorkloadSpec>> workload_specs_from(const po::variables_map& vm, std::size_t max_count) {
    std::vector<std::pair<const Flag*, std::vector<std::string>>> axes;
    std::size_t total = 1;
    for (const Flag& f : flags()) {
        if (!vm.count(f.name)) continue;
        auto values = expand_values(std::string("--") + f.name, vm[f.name].as<std::string>(), f.kind == Kind::integer);
        if (!values) return values.error();
        for (const std::string& v : *values) {
            auto ok = check_item(f, v);
            if (!ok) return ok.error();
        }
        if (values->size() > max_count / total)
            return make_error("the sweep has more than " + std::to_string(max_count) +
                              " configurations; narrow the lists or ranges");
        total *= values->size();
        axes.emplace_back(&f, std::move(*values));
    }
    std::vector<WorkloadSpec> specs;
    specs.reserve(total);
    std::vector<std::size_t> index(axes.size(), 0);
    for (std::size_t n = 0; n < total; ++n) {
        WorkloadSpec s;
        for (std::size_t a = 0; a < axes.size(); ++a) axes[a].first->set(s, axes[a].second[index[a]]);
        specs.push_back(std::move(s));
        for (std::size_t a = axes.size(); a-- > 0;) {  // last flag fastest
            if (++index[a] < axes[a].second.size()) break;
            index[a] = 0;
        }
    }
    return specs;
}

}  // namespace tilescope
