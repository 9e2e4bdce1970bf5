// Hardware profiles: parse + validate (first problem reported with its JSON path), load by
// bundled name or path, list bundled profiles, and write a Hardware back as profile JSON.
#include "core/hardware.hpp"

#include "core/json_keys.hpp"
#include "core/result_io.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <optional>
#include <variant>

#ifndef TILESCOPE_PROFILE_DIR
#error "TILESCOPE_PROFILE_DIR must be defined by core/CMakeLists.txt"
#endif

namespace tilescope {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

// How a field's value must look.
enum class Rule { positive, non_negative };

using Member = std::variant<int Hardware::*, std::int64_t Hardware::*, double Hardware::*,
                            std::vector<std::int64_t> Hardware::*>;

struct FieldSpec {
    const char* name;
    Member member;
    Rule rule;
    bool required = true;  // optional fields keep Hardware's default when absent
};

// Every Hardware fact read from a profile, in file order. Each is {"value": ..., "source": "..."}.
const std::vector<FieldSpec>& field_specs() {
    static const std::vector<FieldSpec> specs = {
        {"sm_count", &Hardware::sm_count, Rule::positive},
        {"max_threads_per_sm", &Hardware::max_threads_per_sm, Rule::positive},
        {"max_warps_per_sm", &Hardware::max_warps_per_sm, Rule::positive},
        {"max_blocks_per_sm", &Hardware::max_blocks_per_sm, Rule::positive},
        {"max_threads_per_block", &Hardware::max_threads_per_block, Rule::positive},
        {"warp_size_threads", &Hardware::warp_size_threads, Rule::positive},
        {"sm_subpartitions", &Hardware::sm_subpartitions, Rule::positive},
        {"registers_per_sm", &Hardware::registers_per_sm, Rule::positive},
        {"max_registers_per_thread", &Hardware::max_registers_per_thread, Rule::positive},
        {"max_registers_per_block", &Hardware::max_registers_per_block, Rule::positive},
        {"register_allocation_unit", &Hardware::register_allocation_unit, Rule::positive},
        {"smem_carveout_steps_bytes", &Hardware::smem_carveout_steps_bytes, Rule::non_negative},
        {"smem_per_sm_bytes", &Hardware::smem_per_sm_bytes, Rule::positive},
        {"smem_per_block_max_bytes", &Hardware::smem_per_block_max_bytes, Rule::positive},
        {"smem_reserved_per_block_bytes", &Hardware::smem_reserved_per_block_bytes, Rule::non_negative},
        {"smem_bandwidth_bytes_per_cycle_per_sm", &Hardware::smem_bandwidth_bytes_per_cycle_per_sm, Rule::positive},
        {"l1_smem_bytes_per_sm", &Hardware::l1_smem_bytes_per_sm, Rule::non_negative, false},
        {"l1_latency_ns", &Hardware::l1_latency_ns, Rule::non_negative, false},
        {"l2_bytes", &Hardware::l2_bytes, Rule::positive},
        {"l2_line_bytes", &Hardware::l2_line_bytes, Rule::positive},
        {"l2_sector_bytes", &Hardware::l2_sector_bytes, Rule::positive},
        {"l2_bandwidth_bytes_per_s", &Hardware::l2_bandwidth_bytes_per_s, Rule::positive},
        {"l2_latency_ns", &Hardware::l2_latency_ns, Rule::positive},
        {"l2_partitions", &Hardware::l2_partitions, Rule::positive, false},
        {"hbm_bytes", &Hardware::hbm_bytes, Rule::positive},
        {"hbm_bandwidth_bytes_per_s", &Hardware::hbm_bandwidth_bytes_per_s, Rule::positive},
        {"hbm_latency_ns", &Hardware::hbm_latency_ns, Rule::positive},
        {"sm_clock_hz", &Hardware::sm_clock_hz, Rule::positive},
        {"memory_clock_hz", &Hardware::memory_clock_hz, Rule::positive},
        {"tensor_fp16_flops_per_s", &Hardware::tensor_fp16_flops_per_s, Rule::positive},
        {"tensor_bf16_flops_per_s", &Hardware::tensor_bf16_flops_per_s, Rule::positive},
        {"tensor_tf32_flops_per_s", &Hardware::tensor_tf32_flops_per_s, Rule::positive},
        {"fp32_flops_per_s", &Hardware::fp32_flops_per_s, Rule::positive},
        {"sfu_ops_per_s", &Hardware::sfu_ops_per_s, Rule::positive},
        {"kernel_launch_latency_ns", &Hardware::kernel_launch_latency_ns, Rule::non_negative},
    };
    return specs;
}

enum class CalRule { efficiency, non_negative, positive, probability, flag, flag012, count };
struct CalSpec {
    const char* name;
    double Calibration::*member;
    CalRule rule;
    // Optional fields are written only when they differ from their default, so profiles
    // calibrated before a field existed serialise, and fingerprint, exactly as before.
    bool optional = false;
};
const std::vector<CalSpec>& calibration_specs() {
    static const std::vector<CalSpec> specs = {
        {"hbm_efficiency", &Calibration::hbm_efficiency, CalRule::efficiency},
        {"l2_efficiency", &Calibration::l2_efficiency, CalRule::efficiency},
        {"smem_efficiency", &Calibration::smem_efficiency, CalRule::efficiency},
        {"tensor_efficiency", &Calibration::tensor_efficiency, CalRule::efficiency},
        {"fp32_efficiency", &Calibration::fp32_efficiency, CalRule::efficiency},
        {"launch_overhead_ns", &Calibration::launch_overhead_ns, CalRule::non_negative},
        {"block_overhead_ns", &Calibration::block_overhead_ns, CalRule::non_negative},
        {"tensor_flops_per_cycle_per_warp", &Calibration::tensor_flops_per_cycle_per_warp, CalRule::non_negative, true},
        {"warp_iteration_ns", &Calibration::warp_iteration_ns, CalRule::non_negative, true},
        {"warp_load_issue_ns_per_byte", &Calibration::warp_load_issue_ns_per_byte, CalRule::non_negative, true},
        {"warp_overlap_exponent", &Calibration::warp_overlap_exponent, CalRule::efficiency, true},
        {"warp_smem_read_ns_per_byte", &Calibration::warp_smem_read_ns_per_byte, CalRule::non_negative, true},
        {"warp_op_ns", &Calibration::warp_op_ns, CalRule::non_negative, true},
        {"warp_issue_model", &Calibration::warp_issue_model, CalRule::flag, true},
        {"warp_queue_model", &Calibration::warp_queue_model, CalRule::flag, true},
        {"warp_load_issue_serial", &Calibration::warp_load_issue_serial, CalRule::flag, true},
        {"warp_store_issue_ns_per_byte", &Calibration::warp_store_issue_ns_per_byte, CalRule::non_negative, true},
        {"warp_fill_wait_ns_per_byte", &Calibration::warp_fill_wait_ns_per_byte, CalRule::non_negative, true},
        {"warp_wait_shared", &Calibration::warp_wait_shared, CalRule::flag012, true},
        {"warp_smsp_pacing", &Calibration::warp_smsp_pacing, CalRule::flag, true},
        {"warp_chain_ns", &Calibration::warp_chain_ns, CalRule::non_negative, true},
        {"warp_chain_ns_per_instruction", &Calibration::warp_chain_ns_per_instruction, CalRule::non_negative, true},
        {"issue_efficiency", &Calibration::issue_efficiency, CalRule::probability, true},
        {"issue_phase_work", &Calibration::issue_phase_work, CalRule::flag, true},
        {"sm_l2_bytes_per_cycle", &Calibration::sm_l2_bytes_per_cycle, CalRule::positive},
        {"load_latency_scale", &Calibration::load_latency_scale, CalRule::positive, true},
        {"load_latency_ns_per_byte", &Calibration::load_latency_ns_per_byte, CalRule::non_negative, true},
        {"pipelined_load_burst_issue", &Calibration::pipelined_load_burst_issue, CalRule::flag012, true},
        {"load_latency_ns_per_tbps", &Calibration::load_latency_ns_per_tbps, CalRule::non_negative, true},
        {"load_latency_queue_dram", &Calibration::load_latency_queue_dram, CalRule::flag, true},
        {"load_latency_queue_l2_hits", &Calibration::load_latency_queue_l2_hits, CalRule::flag012, true},
        {"load_latency_l2_hit_ns_per_tbps", &Calibration::load_latency_l2_hit_ns_per_tbps, CalRule::non_negative, true},
        {"load_latency_queue_shared_path", &Calibration::load_latency_queue_shared_path, CalRule::flag, true},
        {"block_start_spread", &Calibration::block_start_spread, CalRule::probability, true},
        {"hbm_server_slots", &Calibration::hbm_server_slots, CalRule::count, true},
        {"block_reduction_ns", &Calibration::block_reduction_ns, CalRule::non_negative, true},
        {"fragment_store_bytes_per_s", &Calibration::fragment_store_bytes_per_s, CalRule::non_negative, true},
        {"fragment_store_issue_ns_per_byte", &Calibration::fragment_store_issue_ns_per_byte, CalRule::non_negative, true},
        {"fragment_store_own_drain", &Calibration::fragment_store_own_drain, CalRule::flag, true},
        {"fragment_store_hold_ns_per_byte", &Calibration::fragment_store_hold_ns_per_byte, CalRule::non_negative, true},
        {"fragment_store_load_wait", &Calibration::fragment_store_load_wait, CalRule::probability, true},
        {"pipeline_wait_then_issue", &Calibration::pipeline_wait_then_issue, CalRule::flag, true},
        {"sm_share_resident", &Calibration::sm_share_resident, CalRule::flag012, true},
        {"wait_then_issue_block_ns", &Calibration::wait_then_issue_block_ns, CalRule::non_negative, true},
        {"warp_wait_shared_part", &Calibration::warp_wait_shared_part, CalRule::probability, true},
        {"pipeline_serial", &Calibration::pipeline_serial, CalRule::flag012, true},
        {"pipeline_additive", &Calibration::pipeline_additive, CalRule::flag012, true},
        {"l2_fill_in_flight", &Calibration::l2_fill_in_flight, CalRule::flag, true},
        {"hbm_activations_per_s", &Calibration::hbm_activations_per_s, CalRule::non_negative, true},
        {"hbm_narrow_segment_ns", &Calibration::hbm_narrow_segment_ns, CalRule::non_negative, true},
        {"l1_random_replacement", &Calibration::l1_random_replacement, CalRule::flag, true},
        {"smem_fill_bypass", &Calibration::smem_fill_bypass, CalRule::flag, true},
        {"l1_capacity_fraction", &Calibration::l1_capacity_fraction, CalRule::efficiency, true},
        {"l2_dirty_limit", &Calibration::l2_dirty_limit, CalRule::probability, true},
        {"l2_ways", &Calibration::l2_ways, CalRule::non_negative, true},
        {"l2_store_copy", &Calibration::l2_store_copy, CalRule::flag, true},
        {"l2_clean_victims", &Calibration::l2_clean_victims, CalRule::flag, true},
        {"l2_dirty_weight", &Calibration::l2_dirty_weight, CalRule::positive, true},
        {"l2_dirty_age_weight", &Calibration::l2_dirty_age_weight, CalRule::positive, true},
        {"lrc_in_step_one_block", &Calibration::lrc_in_step_one_block, CalRule::probability, true},
        {"lrc_in_step_several_blocks", &Calibration::lrc_in_step_several_blocks, CalRule::probability, true},
        {"lrc_lock_loss_per_iteration", &Calibration::lrc_lock_loss_per_iteration, CalRule::non_negative, true},
        {"lrc_block_distance", &Calibration::lrc_block_distance, CalRule::non_negative, true},
    };
    return specs;
}

std::string show(const json::value& v) {
    std::string s;
    if (v.is_double()) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.10g", v.get_double());
        s = buf;
    } else {
        s = json::serialize(v);
    }
    if (s.size() > 40) s = s.substr(0, 37) + "...";
    return s;
}

// A JSON number as double (ints included); nullopt for non-numbers.
std::optional<double> as_number(const json::value& v) {
    if (v.is_int64()) return static_cast<double>(v.get_int64());
    if (v.is_uint64()) return static_cast<double>(v.get_uint64());
    if (v.is_double()) return v.get_double();
    return std::nullopt;
}

// A JSON number that is an exact integer; nullopt otherwise.
std::optional<std::int64_t> as_integer(const json::value& v) {
    if (v.is_int64()) return v.get_int64();
    if (v.is_uint64()) {
        if (v.get_uint64() > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
        return static_cast<std::int64_t>(v.get_uint64());
    }
    if (v.is_double()) {
        const double d = v.get_double();
        if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9.0e18) return static_cast<std::int64_t>(d);
    }
    return std::nullopt;
}

// Empty when `v` is plausible for field `name` (plausible_range); else why not.
// `zero_ok`: the field may be 0 (an optional rate or cost left off); the message says so only then.
std::string implausible(const std::string& name, double v, bool zero_ok) {
    const auto range = plausible_range(name);
    if (!range) return {};
    const double lo = range->lo, hi = range->hi;
    const char* what = range->what;
    if ((v == 0 && zero_ok) || (v >= lo && v <= hi)) return {};
    std::ostringstream os;
    if (lo == 0)
        os << "must be at most " << hi;
    else
        os << (zero_ok ? "must be 0 or in [" : "must be in [") << lo << ", " << hi << "]";
    os << " " << what << " (got " << v << "): no GPU is this slow or fast; is the unit right?";
    return os.str();
}

// The largest value an integer fact of a profile may take: generous for any GPU of today or the
// next generations (the largest have 144 SMs, 2048 threads and 256 KiB of L1 per SM, 126 MB of
// L2), but small enough that the simulator's per-SM and per-slot tables fit in memory. 0: no
// limit beyond the field's type.
std::int64_t integer_limit(const std::string& name) {
    static const std::map<std::string, std::int64_t> limits = {
        {"sm_count", 4096},
        {"max_threads_per_sm", 16384},
        {"max_warps_per_sm", 512},
        {"max_blocks_per_sm", 512},
        {"max_threads_per_block", 16384},
        {"warp_size_threads", 128},
        {"sm_subpartitions", 64},
        {"registers_per_sm", std::int64_t{1} << 24},
        {"max_registers_per_thread", 4096},
        {"max_registers_per_block", std::int64_t{1} << 24},
        {"register_allocation_unit", 4096},
        {"smem_per_sm_bytes", std::int64_t{64} << 20},
        {"smem_per_block_max_bytes", std::int64_t{64} << 20},
        {"smem_reserved_per_block_bytes", std::int64_t{64} << 20},
        {"l1_smem_bytes_per_sm", std::int64_t{64} << 20},
        {"l2_bytes", std::int64_t{16} << 30},
        {"l2_line_bytes", 4096},
        {"l2_sector_bytes", 4096},
        {"l2_partitions", 64},
        {"hbm_bytes", std::int64_t{1} << 50},
    };
    const auto it = limits.find(name);
    return it == limits.end() ? 0 : it->second;
}

class Parser {
public:
    explicit Parser(std::string origin) : origin_(std::move(origin)) {}

    Error fail(const std::string& path, const std::string& rule) const {
        return make_error("profile " + origin_ + ": " + path + ": " + rule);
    }

    Status read_field(const json::object& root, const FieldSpec& spec, Hardware& hw) const {
        const std::string path = std::string("$.") + spec.name;
        const json::value* field = root.if_contains(spec.name);
        if (!field && !spec.required) {
            hw.sources[spec.name] = "default (absent from the profile)";
            return {};
        }
        if (!field) return fail(path, "missing field");
        if (!field->is_object())
            return fail(path, "must be an object {\"value\": ..., \"source\": \"...\"} (got " + show(*field) + ")");
        const json::object& obj = field->get_object();
        const json::value* value = obj.if_contains("value");
        if (!value) return fail(path + ".value", "missing field");
        const json::value* source = obj.if_contains("source");
        if (!source) return fail(path + ".source", "missing field (say where the number comes from)");
        if (!source->is_string() || source->get_string().empty())
            return fail(path + ".source", "must be a non-empty string");
        for (const auto& kv : obj) {
            if (kv.key() != "value" && kv.key() != "source")
                return fail(path + "." + std::string(kv.key()), "unknown field (expected value, source)");
        }
        hw.sources[spec.name] = std::string(source->get_string());
        const std::string vpath = path + ".value";
        const bool positive = spec.rule == Rule::positive;
        const char* int_rule = positive ? "must be a positive integer" : "must be a non-negative integer";
        const char* num_rule = positive ? "must be a positive number" : "must be a non-negative number";

        if (std::holds_alternative<std::vector<std::int64_t> Hardware::*>(spec.member)) {
            auto member = std::get<std::vector<std::int64_t> Hardware::*>(spec.member);
            if (!value->is_array() || value->get_array().empty())
                return fail(vpath, "must be a non-empty array of integers (got " + show(*value) + ")");
            std::vector<std::int64_t> out;
            const json::array& arr = value->get_array();
            for (std::size_t i = 0; i < arr.size(); ++i) {
                auto iv = as_integer(arr[i]);
                if (!iv || *iv < 0)
                    return fail(vpath + "[" + std::to_string(i) + "]", std::string(int_rule) + " (got " + show(arr[i]) + ")");
                if (!out.empty() && *iv <= out.back())
                    return fail(vpath, "must be ascending (" + std::to_string(*iv) + " after " + std::to_string(out.back()) + ")");
                out.push_back(*iv);
            }
            hw.*member = std::move(out);
            return {};
        }
        if (std::holds_alternative<double Hardware::*>(spec.member)) {
            auto nv = as_number(*value);
            if (!nv || !std::isfinite(*nv) || (positive ? *nv <= 0 : *nv < 0))
                return fail(vpath, std::string(num_rule) + " (got " + show(*value) + ")");
            if (std::string why = implausible(spec.name, *nv, !positive); !why.empty()) return fail(vpath, why);
            hw.*std::get<double Hardware::*>(spec.member) = *nv;
            return {};
        }
        auto iv = as_integer(*value);
        if (!iv || (positive ? *iv <= 0 : *iv < 0))
            return fail(vpath, std::string(int_rule) + " (got " + show(*value) + ")");
        if (const std::int64_t hi = integer_limit(spec.name); hi > 0 && *iv > hi)
            return fail(vpath, "must be at most " + std::to_string(hi) + " (got " + show(*value) +
                                   "): no GPU is this large; is the unit right?");
        if (std::holds_alternative<int Hardware::*>(spec.member)) {
            if (*iv > INT32_MAX) return fail(vpath, "must be at most 2147483647 (got " + show(*value) + ")");
            hw.*std::get<int Hardware::*>(spec.member) = static_cast<int>(*iv);
        } else {
            hw.*std::get<std::int64_t Hardware::*>(spec.member) = *iv;
        }
        return {};
    }

    Status read_calibration(const json::value& v, Hardware& hw) const {
        if (!v.is_object()) return fail("$.calibration", "must be an object (got " + show(v) + ")");
        for (const auto& kv : v.get_object()) {
            const std::string key(kv.key());
            const std::string path = "$.calibration." + key;
            auto it = std::find_if(calibration_specs().begin(), calibration_specs().end(),
                                   [&](const CalSpec& c) { return key == c.name; });
            if (it == calibration_specs().end()) {
                if (key == "source" || key == "notes" || key == "description") continue;
                return fail(path, "unknown calibration parameter");
            }
            const json::value* val = &kv.value();
            if (val->is_object()) {
                val = val->get_object().if_contains("value");
                if (!val) return fail(path + ".value", "missing field");
            }
            auto nv = as_number(*val);
            if (it->rule == CalRule::efficiency) {
                if (!nv || !(*nv > 0.0 && *nv <= 1.0))
                    return fail(path, "must be a number in (0, 1] (got " + show(*val) + ")");
            } else if (it->rule == CalRule::probability) {
                if (!nv || !(*nv >= 0.0 && *nv <= 1.0))
                    return fail(path, "must be a number in [0, 1] (got " + show(*val) + ")");
            } else if (it->rule == CalRule::flag) {
                if (!nv || !(*nv == 0.0 || *nv == 1.0))
                    return fail(path, "must be 0 or 1 (got " + show(*val) + ")");
            } else if (it->rule == CalRule::flag012) {
                if (!nv || !(*nv == 0.0 || *nv == 1.0 || *nv == 2.0))
                    return fail(path, "must be 0, 1 or 2 (got " + show(*val) + ")");
            } else if (it->rule == CalRule::count) {
                if (!nv || !(*nv >= 0.0 && *nv <= 1e6 && *nv == std::floor(*nv)))
                    return fail(path, "must be a whole number in [0, 1000000] (got " + show(*val) + ")");
            } else if (it->rule == CalRule::positive) {
                if (!nv || !std::isfinite(*nv) || *nv <= 0)
                    return fail(path, "must be a positive number (got " + show(*val) + ")");
            } else if (!nv || !std::isfinite(*nv) || *nv < 0) {
                return fail(path, "must be a non-negative number (got " + show(*val) + ")");
            }
            if (std::string why = implausible(key, *nv, it->rule == CalRule::non_negative); !why.empty()) return fail(path, why);
            hw.calibration.*(it->member) = *nv;
        }
        hw.calibration.calibrated = true;
        // The warp model's forms exclude each other (simulator/launch_engine.cpp): checked here,
        // when the file is read, so that `profiles --show` and the analytic model refuse the
        // profile too, with the field's path.
        const Calibration& c = hw.calibration;
        auto num = [](double x) {
            std::ostringstream os;
            os << x;
            return os.str();
        };
        if (c.warp_issue_model != 0.0 && c.warp_overlap_exponent != 1.0)
            return fail("$.calibration.warp_overlap_exponent",
                        "must be 1 with warp_issue_model 1 (got " + num(c.warp_overlap_exponent) +
                            "; the issue form has no overlap exponent)");
        if (c.warp_queue_model != 0.0 && (c.warp_overlap_exponent != 1.0 || c.warp_issue_model != 0.0))
            return fail("$.calibration.warp_queue_model",
                        "1 needs warp_overlap_exponent 1 and warp_issue_model 0 (got " + num(c.warp_overlap_exponent) +
                            " and " + num(c.warp_issue_model) + ")");
        if (c.warp_load_issue_serial != 0.0 && (c.warp_issue_model != 0.0 || c.warp_queue_model != 0.0))
            return fail("$.calibration.warp_load_issue_serial",
                        "1 needs warp_issue_model 0 and warp_queue_model 0 (got " + num(c.warp_issue_model) + " and " +
                            num(c.warp_queue_model) + "; their issue term already queues the loads)");
        if (c.warp_wait_shared != 0.0 && (c.warp_issue_model != 0.0 || c.warp_queue_model != 0.0))
            return fail("$.calibration.warp_wait_shared",
                        num(c.warp_wait_shared) + " needs warp_issue_model 0 and warp_queue_model 0 (got " + num(c.warp_issue_model) + " and " +
                            num(c.warp_queue_model) + "; it is a law of the power-law form's wait)");
        if (c.warp_smsp_pacing != 0.0 && (c.warp_issue_model != 0.0 || c.warp_queue_model != 0.0))
            return fail("$.calibration.warp_smsp_pacing",
                        "1 needs warp_issue_model 0 and warp_queue_model 0 (got " + num(c.warp_issue_model) + " and " +
                            num(c.warp_queue_model) + "; it is a law of the power-law form)");
        if (c.l2_ways != std::floor(c.l2_ways) || c.l2_ways > 256)
            return fail("$.calibration.l2_ways", "must be a whole number in [0, 256] (got " + num(c.l2_ways) + ")");
        if (!(c.l2_dirty_weight >= 1 && c.l2_dirty_weight <= 16))
            return fail("$.calibration.l2_dirty_weight", "must be in [1, 16] (got " + num(c.l2_dirty_weight) + ")");
        if (!(c.l2_dirty_age_weight > 0 && c.l2_dirty_age_weight <= 1))
            return fail("$.calibration.l2_dirty_age_weight", "must be in (0, 1] (got " + num(c.l2_dirty_age_weight) + ")");
        if (c.l2_dirty_age_weight != 1.0 && (c.l2_ways == 0.0 || c.l2_clean_victims != 0.0))
            return fail("$.calibration.l2_dirty_age_weight",
                        num(c.l2_dirty_age_weight) + " needs sampled victims and no clean victims (l2_ways > 0 and l2_clean_victims 0; got " +
                            num(c.l2_ways) + " and " + num(c.l2_clean_victims) + ")");
        if (c.fragment_store_own_drain != 0.0 && !(c.fragment_store_bytes_per_s > 0))
            return fail("$.calibration.fragment_store_own_drain",
                        "1 needs fragment_store_bytes_per_s > 0 (the drain's rate; got " +
                            num(c.fragment_store_bytes_per_s) + ")");
        return {};
    }

    Status read_provenance(const json::value& v, Hardware& hw) const {
        if (!v.is_object()) return fail("$.provenance", "must be an object (got " + show(v) + ")");
        for (const auto& kv : v.get_object()) {
            if (kv.value().is_string())
                hw.provenance[std::string(kv.key())] = std::string(kv.value().get_string());
            else
                hw.provenance[std::string(kv.key())] = json::serialize(kv.value());
        }
        return {};
    }

    // Rules that relate fields to each other.
    Status cross_check(const Hardware& hw) const {
        auto i2s = [](std::int64_t v) { return std::to_string(v); };
        if (static_cast<std::int64_t>(hw.max_warps_per_sm) * hw.warp_size_threads != hw.max_threads_per_sm)
            return fail("$.max_warps_per_sm.value",
                        i2s(hw.max_warps_per_sm) + " warps x " + i2s(hw.warp_size_threads) +
                            " threads must equal max_threads_per_sm " + i2s(hw.max_threads_per_sm));
        if (hw.max_threads_per_block > hw.max_threads_per_sm)
            return fail("$.max_threads_per_block.value", i2s(hw.max_threads_per_block) +
                                                             " exceeds max_threads_per_sm " + i2s(hw.max_threads_per_sm));
        if (hw.max_threads_per_block % hw.warp_size_threads != 0)
            return fail("$.max_threads_per_block.value", "must be a multiple of warp_size_threads " + i2s(hw.warp_size_threads));
        if (hw.max_registers_per_block > hw.registers_per_sm)
            return fail("$.max_registers_per_block.value",
                        i2s(hw.max_registers_per_block) + " exceeds registers_per_sm " + i2s(hw.registers_per_sm));
        if (hw.registers_per_sm % hw.sm_subpartitions != 0)
            return fail("$.sm_subpartitions.value", "must divide registers_per_sm " + i2s(hw.registers_per_sm));
        if (hw.smem_carveout_steps_bytes.back() != hw.smem_per_sm_bytes)
            return fail("$.smem_per_sm_bytes.value", i2s(hw.smem_per_sm_bytes) + " must equal the largest carve-out step " +
                                                         i2s(hw.smem_carveout_steps_bytes.back()));
        if (hw.smem_per_block_max_bytes > hw.smem_per_sm_bytes)
            return fail("$.smem_per_block_max_bytes.value", i2s(hw.smem_per_block_max_bytes) + " exceeds smem_per_sm_bytes " +
                                                                 i2s(hw.smem_per_sm_bytes));
        if (hw.smem_per_block_max_bytes + hw.smem_reserved_per_block_bytes > hw.smem_per_sm_bytes)
            return fail("$.smem_reserved_per_block_bytes.value",
                        "smem_per_block_max_bytes " + i2s(hw.smem_per_block_max_bytes) + " + reservation " +
                            i2s(hw.smem_reserved_per_block_bytes) + " exceeds smem_per_sm_bytes " + i2s(hw.smem_per_sm_bytes));
        if (hw.l2_line_bytes % hw.l2_sector_bytes != 0)
            return fail("$.l2_line_bytes.value", i2s(hw.l2_line_bytes) + " must be a multiple of l2_sector_bytes " +
                                                     i2s(hw.l2_sector_bytes));
        if (hw.l2_bytes % hw.l2_line_bytes != 0)
            return fail("$.l2_bytes.value", i2s(hw.l2_bytes) + " must be a multiple of l2_line_bytes " + i2s(hw.l2_line_bytes));
        if (hw.hbm_bytes <= hw.l2_bytes)
            return fail("$.hbm_bytes.value", i2s(hw.hbm_bytes) + " must exceed l2_bytes " + i2s(hw.l2_bytes) +
                                                 " (device memory in bytes, e.g. 85899345920 for 80 GiB)");
        if ((hw.register_allocation_unit & (hw.register_allocation_unit - 1)) != 0)
            return fail("$.register_allocation_unit.value",
                        "must be a power of two (got " + i2s(hw.register_allocation_unit) + ")");
        if (hw.l1_smem_bytes_per_sm > 0 && hw.l1_smem_bytes_per_sm < hw.smem_per_sm_bytes)
            return fail("$.l1_smem_bytes_per_sm.value",
                        i2s(hw.l1_smem_bytes_per_sm) + " must be at least smem_per_sm_bytes " + i2s(hw.smem_per_sm_bytes) +
                            " (shared memory is carved out of the L1)");
        return {};
    }

    Result<Hardware> parse(const std::string& text) const {
        boost::system::error_code ec;
        json::value root = json::parse(text, ec);
        if (ec) return fail("$", json_syntax_error(text));
        if (const std::string dup = json_duplicate_key(text); !dup.empty())
            return fail(dup, kDuplicateKeyRule);
        if (!root.is_object()) return fail("$", "must be a JSON object");
        const json::object& obj = root.get_object();
        Hardware hw;
        hw.origin = origin_;

        const json::value* name = obj.if_contains("name");
        if (!name) return fail("$.name", "missing field");
        if (!name->is_string() || name->get_string().empty()) return fail("$.name", "must be a non-empty string");
        hw.name = std::string(name->get_string());
        if (const json::value* dn = obj.if_contains("display_name")) {
            if (!dn->is_string()) return fail("$.display_name", "must be a string");
            hw.display_name = std::string(dn->get_string());
        } else {
            hw.display_name = hw.name;
        }
        const json::value* cc = obj.if_contains("compute_capability");
        if (!cc) return fail("$.compute_capability", "missing field");
        auto ccv = as_integer(*cc);
        if (!ccv || *ccv < 10 || *ccv > 200)
            return fail("$.compute_capability", "must be an integer like 80 or 90 (got " + show(*cc) + ")");
        hw.compute_capability = static_cast<int>(*ccv);

        std::set<std::string> known = {"name", "display_name", "compute_capability", "calibration", "provenance",
                                       "description", "notes"};
        for (const FieldSpec& spec : field_specs()) {
            known.insert(spec.name);
            if (Status s = read_field(obj, spec, hw); !s) return s.error();
        }
        for (const auto& kv : obj) {
            if (!known.count(std::string(kv.key()))) return fail("$." + std::string(kv.key()), "unknown field");
        }
        if (const json::value* cal = obj.if_contains("calibration")) {
            if (Status s = read_calibration(*cal, hw); !s) return s.error();
        }
        if (const json::value* prov = obj.if_contains("provenance")) {
            if (Status s = read_provenance(*prov, hw); !s) return s.error();
        }
        if (Status s = cross_check(hw); !s) return s.error();
        return hw;
    }

private:
    std::string origin_;
};

bool is_regular_file(const std::string& path) {
    std::error_code ec;
    return fs::is_regular_file(path, ec);
}

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Result<Hardware> parse_hardware(const std::string& json_text, const std::string& origin) {
    return Parser(origin).parse(json_text);
}

// A range no GPU leaves, by the unit in the field's name: it catches a value in the wrong unit or
// a typo (1e-300 B/s, a latency of 1e308 ns) that the sign rules let through and that would make
// every prediction infinite or the simulator never finish.
std::optional<PlausibleRange> plausible_range(const std::string& field) {
    auto ends = [&](const char* suffix) {
        const std::string s(suffix);
        return field.size() >= s.size() && field.compare(field.size() - s.size(), s.size(), s) == 0;
    };
    if (ends("_ns_per_byte") || ends("_ns_per_tbps")) return PlausibleRange{0, 1e6, "ns per unit"};
    // A nonzero time under 10 ps is a value in seconds (or ms) typed as ns; a rate under 1e6 per
    // second is one in GB/s or TFLOP/s typed per second (an H100's HBM: 3.35e12 B/s, not 3350).
    if (ends("_ns")) return PlausibleRange{0.01, 1e9, "ns"};
    if (ends("_per_s") || ends("_hz")) return PlausibleRange{1e6, 1e18, "per second"};
    if (ends("_efficiency")) return PlausibleRange{1e-6, 1, "of peak"};
    if (ends("_per_cycle_per_sm") || ends("_per_cycle_per_warp") || ends("_bytes_per_cycle"))
        return PlausibleRange{1, 1e9, "per cycle"};
    if (field == "load_latency_scale") return PlausibleRange{1e-6, 1e6, "(a multiple)"};
    return std::nullopt;
}

Result<Hardware> load_hardware_file(const std::string& path) {
    auto text = read_text_file(path, "profile file '" + path + "'");
    if (!text) return text.error();
    return parse_hardware(*text, path);
}

std::string profile_dir() {
    if (const char* env = std::getenv("TILESCOPE_PROFILE_DIR"); env && *env) return env;
    return TILESCOPE_PROFILE_DIR;
}

std::vector<std::string> list_bundled_profiles() {
    std::vector<std::string> names;
    std::error_code ec;
    const fs::path dir(profile_dir());
    for (const auto& sub : {std::string(), std::string("calibrated")}) {
        const fs::path d = sub.empty() ? dir : dir / sub;
        if (!fs::is_directory(d, ec)) continue;
        for (const auto& entry : fs::directory_iterator(d, ec)) {
            if (!entry.is_regular_file(ec) || entry.path().extension() != ".json") continue;
            const std::string stem = entry.path().stem().string();
            names.push_back(sub.empty() ? stem : sub + "/" + stem);
        }
    }
    std::sort(names.begin(), names.end());
    return names;
}

Result<Hardware> load_hardware(const std::string& spec) {
    if (spec.empty()) return make_error("--gpu must name a profile or a JSON file (got an empty string)");
    const std::string bundled = (fs::path(profile_dir()) / (spec + ".json")).string();
    const bool looks_like_path = spec.find('/') != std::string::npos || ends_with(spec, ".json");
    if (!ends_with(spec, ".json") && spec.find("..") == std::string::npos && is_regular_file(bundled))
        return load_hardware_file(bundled);
    std::string list;
    for (const auto& n : list_bundled_profiles()) list += (list.empty() ? "" : ", ") + n;
    if (looks_like_path) {
        if (is_regular_file(spec)) return load_hardware_file(spec);
        std::error_code ec;
        const bool exists = fs::exists(spec, ec);
        // "calibrated/a100-40gb" before anyone calibrated an A100: a bundled name, not a path.
        if (!exists && !ends_with(spec, ".json"))
            return make_error("unknown GPU profile '" + spec + "' (no bundled profile and no such file); available: " +
                              (list.empty() ? "(none found in " + profile_dir() + ")" : list));
        return make_error("cannot read profile file '" + spec + "' (" + (exists ? "not a regular file" : "no such file") + ")");
    }
    return make_error("unknown GPU profile '" + spec + "'; available: " + (list.empty() ? "(none found in " + profile_dir() + ")" : list));
}

std::uint64_t fnv1a64(std::string_view text) {
    std::uint64_t h = 14695981039346656037ULL;
    for (const char ch : text) {
        h ^= static_cast<unsigned char>(ch);
        h *= 1099511628211ULL;
    }
    return h;
}

std::string profile_fingerprint(const Hardware& hw) {
    Hardware h = hw;
    // Where it was loaded from, the source notes and the provenance do not change a prediction.
    h.origin.clear();
    h.sources.clear();
    h.provenance.clear();
    char buf[24];
    // hardware_to_json writes the calibration only for calibrated profiles: add it explicitly.
    const Calibration& c = h.calibration;
    std::ostringstream cal;
    cal.precision(17);
    cal << c.hbm_efficiency << ' ' << c.l2_efficiency << ' ' << c.smem_efficiency << ' ' << c.tensor_efficiency << ' '
        << c.fp32_efficiency << ' ' << c.launch_overhead_ns << ' ' << c.block_overhead_ns << ' '
        << c.sm_l2_bytes_per_cycle << ' ' << c.calibrated;
    // Optional field: only when set, so fingerprints of profiles without it are unchanged.
    if (c.tensor_flops_per_cycle_per_warp > 0) cal << " tensor_flops_per_cycle_per_warp " << c.tensor_flops_per_cycle_per_warp;
    if (c.warp_model()) {
        cal << " warp_iteration_ns " << c.warp_iteration_ns << " warp_load_issue_ns_per_byte "
            << c.warp_load_issue_ns_per_byte << " warp_overlap_exponent " << c.warp_overlap_exponent;
        // Newer optional warp-model terms: only when set (older fingerprints unchanged).
        if (c.warp_smem_read_ns_per_byte > 0) cal << " warp_smem_read_ns_per_byte " << c.warp_smem_read_ns_per_byte;
        if (c.warp_op_ns > 0) cal << " warp_op_ns " << c.warp_op_ns;
        if (c.warp_issue_model != 0.0) cal << " warp_issue_model " << c.warp_issue_model;
        if (c.warp_queue_model != 0.0) cal << " warp_queue_model " << c.warp_queue_model;
        if (c.warp_load_issue_serial != 0.0) cal << " warp_load_issue_serial " << c.warp_load_issue_serial;
        if (c.warp_fill_wait_ns_per_byte > 0) cal << " warp_fill_wait_ns_per_byte " << c.warp_fill_wait_ns_per_byte;
        if (c.warp_store_issue_ns_per_byte > 0) cal << " warp_store_issue_ns_per_byte " << c.warp_store_issue_ns_per_byte;
        if (c.warp_wait_shared != 0.0) cal << " warp_wait_shared " << c.warp_wait_shared;
        if (c.issue_phase_work != 0.0) cal << " issue_phase_work " << c.issue_phase_work;
        if (c.warp_smsp_pacing != 0.0) cal << " warp_smsp_pacing " << c.warp_smsp_pacing;
        if (c.warp_chain_ns_per_instruction > 0)
            cal << " warp_chain_ns " << c.warp_chain_ns << " warp_chain_ns_per_instruction "
                << c.warp_chain_ns_per_instruction;
    }
    if (c.issue_efficiency > 0) cal << " issue_efficiency " << c.issue_efficiency;
    if (c.load_latency_scale != 1.0) cal << " load_latency_scale " << c.load_latency_scale;
    if (c.load_latency_ns_per_byte > 0) cal << " load_latency_ns_per_byte " << c.load_latency_ns_per_byte;
    if (c.pipelined_load_burst_issue != 0.0) cal << " pipelined_load_burst_issue " << c.pipelined_load_burst_issue;
    if (c.load_latency_ns_per_tbps > 0) cal << " load_latency_ns_per_tbps " << c.load_latency_ns_per_tbps;
    if (c.load_latency_queue_dram != 0.0) cal << " load_latency_queue_dram " << c.load_latency_queue_dram;
    if (c.load_latency_queue_l2_hits != 0.0) cal << " load_latency_queue_l2_hits " << c.load_latency_queue_l2_hits;
    if (c.load_latency_l2_hit_ns_per_tbps > 0)
        cal << " load_latency_l2_hit_ns_per_tbps " << c.load_latency_l2_hit_ns_per_tbps;
    if (c.load_latency_queue_shared_path != 0.0)
        cal << " load_latency_queue_shared_path " << c.load_latency_queue_shared_path;
    if (c.block_start_spread > 0) cal << " block_start_spread " << c.block_start_spread;
    if (c.hbm_server_slots > 0) cal << " hbm_server_slots " << c.hbm_server_slots;
    if (c.block_reduction_ns > 0) cal << " block_reduction_ns " << c.block_reduction_ns;
    if (c.fragment_store_bytes_per_s > 0) cal << " fragment_store_bytes_per_s " << c.fragment_store_bytes_per_s;
    if (c.fragment_store_issue_ns_per_byte > 0)
        cal << " fragment_store_issue_ns_per_byte " << c.fragment_store_issue_ns_per_byte;
    if (c.fragment_store_own_drain != 0.0) cal << " fragment_store_own_drain " << c.fragment_store_own_drain;
    if (c.fragment_store_hold_ns_per_byte > 0)
        cal << " fragment_store_hold_ns_per_byte " << c.fragment_store_hold_ns_per_byte;
    if (c.fragment_store_load_wait > 0) cal << " fragment_store_load_wait " << c.fragment_store_load_wait;
    if (c.sm_share_resident != 0.0) cal << " sm_share_resident " << c.sm_share_resident;
    if (c.wait_then_issue_block_ns > 0) cal << " wait_then_issue_block_ns " << c.wait_then_issue_block_ns;
    if (c.warp_wait_shared_part > 0) cal << " warp_wait_shared_part " << c.warp_wait_shared_part;
    if (c.pipeline_wait_then_issue != 0.0) cal << " pipeline_wait_then_issue " << c.pipeline_wait_then_issue;
    if (c.pipeline_serial != 0.0) cal << " pipeline_serial " << c.pipeline_serial;
    if (c.pipeline_additive != 0.0) cal << " pipeline_additive " << c.pipeline_additive;
    if (c.l2_fill_in_flight != 0.0) cal << " l2_fill_in_flight " << c.l2_fill_in_flight;
    if (c.hbm_activations_per_s > 0) cal << " hbm_activations_per_s " << c.hbm_activations_per_s;
    if (c.hbm_narrow_segment_ns > 0) cal << " hbm_narrow_segment_ns " << c.hbm_narrow_segment_ns;
    if (c.l1_random_replacement != 0.0) cal << " l1_random_replacement " << c.l1_random_replacement;
    if (c.smem_fill_bypass != 0.0) cal << " smem_fill_bypass " << c.smem_fill_bypass;
    if (c.l1_capacity_fraction != 1.0) cal << " l1_capacity_fraction " << c.l1_capacity_fraction;
    if (c.l2_dirty_limit != 0.0) cal << " l2_dirty_limit " << c.l2_dirty_limit;
    if (c.l2_ways != 0.0) cal << " l2_ways " << c.l2_ways;
    if (c.l2_store_copy != 0.0) cal << " l2_store_copy " << c.l2_store_copy;
    if (c.l2_clean_victims != 0.0) cal << " l2_clean_victims " << c.l2_clean_victims;
    if (c.l2_dirty_weight != 1.0) cal << " l2_dirty_weight " << c.l2_dirty_weight;
    if (c.l2_dirty_age_weight != 1.0) cal << " l2_dirty_age_weight " << c.l2_dirty_age_weight;
    if (c.lrc_block_distance > 0) cal << " lrc_block_distance " << c.lrc_block_distance;
    std::snprintf(buf, sizeof buf, "%016llx",
                  static_cast<unsigned long long>(fnv1a64(hardware_to_json(h) + cal.str())));
    return buf;
}

std::string profile_status(const Hardware& hw) {
    std::string line = hw.calibration.calibrated ? "calibrated" : "datasheet numbers, not calibrated";
    const auto v = hw.provenance.find("validated");
    if (v != hw.provenance.end() && !v->second.empty()) {
        const auto f = hw.provenance.find("validated_fingerprint");
        if (f == hw.provenance.end() || f->second == profile_fingerprint(hw)) return line + "; " + v->second;
        return line + "; edited since it was validated (fingerprint " + profile_fingerprint(hw) + ", validated " +
               f->second + "): its recorded held-out errors do not apply (run `tilescope validate`)";
    }
    return line + (hw.calibration.calibrated
                       ? "; no held-out validation recorded (run `tilescope validate`)"
                       : "; never compared with measurements: times can be off by 40% or more (README, \"How "
                         "accurate is it?\")");
}

std::string hardware_to_json(const Hardware& hw) {
    json::object root;
    root["name"] = hw.name;
    root["display_name"] = hw.display_name;
    root["compute_capability"] = hw.compute_capability;
    for (const FieldSpec& spec : field_specs()) {
        json::object field;
        std::visit(
            [&](auto member) {
                using T = std::decay_t<decltype(hw.*member)>;
                if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) {
                    json::array arr;
                    for (auto v : hw.*member) arr.push_back(v);
                    field["value"] = std::move(arr);
                } else {
                    field["value"] = hw.*member;
                }
            },
            spec.member);
        auto it = hw.sources.find(spec.name);
        field["source"] = it != hw.sources.end() ? it->second : std::string("unknown");
        root[spec.name] = std::move(field);
    }
    if (hw.calibration.calibrated) {
        json::object cal;
        static const Calibration defaults;
        for (const CalSpec& c : calibration_specs()) {
            if (c.optional && hw.calibration.*(c.member) == defaults.*(c.member)) continue;
            cal[c.name] = hw.calibration.*(c.member);
        }
        root["calibration"] = std::move(cal);
    }
    if (!hw.provenance.empty()) {
        json::object prov;
        for (const auto& [k, v] : hw.provenance) prov[k] = v;
        root["provenance"] = std::move(prov);
    }
    return json::serialize(root);
}

double* calibration_member(Calibration& c, const std::string& name) {
    for (const CalSpec& spec : calibration_specs())
        if (name == spec.name) return &(c.*(spec.member));
    return nullptr;
}

}  // namespace tilescope
