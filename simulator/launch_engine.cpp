// Event-driven simulation of one launch.
//
// Resources. Three kinds of processor-sharing servers (ps_server.hpp): HBM (whole GPU, bytes),
// L2 (whole GPU, bytes, each job capped at one SM's L2 port) and one "SM pipes" server per SM
// (work in ns at the SM's full rates, shared by the SM's resident blocks).
//
// Block program -> phases. The steps of a block are grouped by their `iteration` field (a new
// phase starts whenever it changes). A phase has three parts, in this order:
//   mem   - its global loads. At issue time the L2 model decides hit bytes, fill bytes and
//           write-backs; the job then needs its requested bytes served by the L2 server and its
//           fill + write-back bytes by the HBM server, concurrently, plus a latency (HBM latency
//           when anything missed, else L2 latency) once both are served.
//   comp  - shared-memory bytes (read + write) and tensor / FP32 / SFU work. Its length at full
//           SM rates is the largest of the four terms (the pipes run side by side, warps hide
//           each other's dependencies); the SM server shares the SM among its resident blocks.
//   store - its global stores: L2 bytes, and HBM bytes for any write-backs they cause.
// Pipelining with `stages` = s buffers: mem(j) is issued once comp(j - s) has finished (the
// buffer it overwrites is free), so loads of iteration i + s - 1 overlap compute of i;
// comp(j) starts when mem(j) has arrived and comp(j - 1) finished; stores are issued when their
// comp finishes and the block retires when its loads and compute are done: stores are posted
// (a warp does not wait for them), so they drain through the L2 and HBM servers while the next
// block runs, and the launch ends when the last of them has drained. Fragment stores cost the
// L2 server their data bytes x L2 rate / Calibration::fragment_store_bytes_per_s when a profile
// sets that rate. Barriers only order steps, which the phase order already does; they cost
// nothing extra here.
#include "simulator/launch_engine.hpp"
#include "simulator/splitmix.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <queue>
#include <unordered_map>
#include <vector>

#include "simulator/l1_cache.hpp"
#include "simulator/phase.hpp"
#include "simulator/ps_server.hpp"
#include "simulator/server_heap.hpp"
#include "simulator/sampler.hpp"

namespace tilescope::sim {

namespace {

// Calls f(begin, end) for the byte ranges of a region: once when its rows are contiguous,
// else once per row.
template <class F>
inline void for_each_byte_range(const Region& r, F&& f) {
    if (r.rows == 1 || r.stride_bytes == r.row_bytes) {
        f(r.offset_bytes, r.offset_bytes + r.rows * r.row_bytes);
        return;
    }
    for (std::int64_t row = 0; row < r.rows; ++row) {
        const std::int64_t a = r.offset_bytes + row * r.stride_bytes;
        f(a, a + r.row_bytes);
    }
}

// A DRAM page (row buffer) of one HBM3 pseudo-channel: 1 KiB (JEDEC JESD238 HBM3). A load's
// misses open one page per this many bytes of each row segment (change 37).
constexpr std::int64_t kHbmPageBytes = 1024;
constexpr double kBusyThreshold = 0.5;  // below this utilisation everywhere, a bin is "latency"
enum class JobKind : std::uint8_t { mem, comp, store, hold };

struct Job {
    std::uint32_t slot = 0;
    std::uint32_t phase = 0;
    JobKind kind = JobKind::mem;
    std::uint8_t pending = 0;  // server parts not yet served
    double latency_ns = 0;
    // Loads: the earliest the data can be back, issue + the job's uncontended transfer time +
    // latency. Queueing in the servers overlaps the latency (see part_served).
    double earliest_done_ns = 0;
    double inflight_bytes = 0;  // loads: what the job adds to the bytes in flight (one iteration's)
    double dram_inflight_bytes = 0;  // the same, its L2 misses only (Rates::latency_queue_dram)
    // Loads and compute (change 61): when the job began, and whether the other blocks' store
    // waits have been added to it yet (Engine::store_paused).
    double begin_ns = 0;
    bool store_paused = false;
    // Loads under Rates::pipeline_additive (change 64; Engine::compute_paused): the block's
    // compute clock at issue or at the last check, when that check was (-1: not yet due), and the
    // compute time overlapping the load that its round trip has still to make up.
    double comp_mark_ns = 0, comp_check_ns = -1, comp_need_ns = 0;
    // Compute under sm_share_resident 2 (change 95): its block gave up its SM share for the wait.
    bool released_share = false;
};

struct Slot {
    int sm = 0, index = 0;
    bool busy = false;
    std::int64_t block = -1;
    std::int64_t next_item = 0;  // persistent: next work item of this block
    // The regions of the block's loads and stores, copied out of its program (which is
    // generated into a shared scratch vector): a resident block touches only these later, and
    // keeping every resident block's whole program made cache misses the hot spot.
    std::vector<Region> loads, stores;
    std::vector<Phase> phases;
    std::vector<std::uint8_t> mem_done;
    std::uint32_t next_mem = 0, next_comp = 0, comp_done = 0, outstanding = 0;
    bool comp_running = false;
    std::int64_t comp_waiting = -1;  // streamed phase whose compute finished before its loads
    double start_ns = 0;
    double hbm_bytes = 0, l2_bytes = 0, smem_bytes = 0;
    double store_wait_ns = 0;  // change 61: the change-60 store waits its blocks have begun, in all
    // Change 64: the time the slot's blocks have spent computing (their compute jobs' work on the
    // SM server, from start_comp to done), and when the running one's work began (-1: none).
    double comp_busy_ns = 0, comp_started_ns = -1;
    std::vector<std::uint32_t> loads_on_compute;  // loads due while the block computed (change 64)
};

enum class EventKind : std::uint8_t { job, block_start, comp_start };

// Timers (latency ends, block starts, ends of compute waits): never invalidated, so a plain binary heap.
struct Event {
    double t;
    std::uint64_t seq;
    EventKind kind;
    std::uint32_t id;
    bool operator<(const Event& o) const {  // max-heap -> earliest first, FIFO on ties
        if (t != o.t) return t > o.t;
        return seq > o.seq;
    }
};

// One SM's tensor rate for a launch. Without a latency limit (Rates::tensor_flops_per_ns_per_warp
// = 0) it is the calibrated throughput, unchanged. With one, a warp issuing a dependent
// mma.sync chain sustains at most that rate, so the SM's rate is
//   min(throughput, resident warps per SM x per-warp rate),
// resident warps = blocks per SM x warps per block (blocks per SM: occupancy's blocks_per_sm, or
// ceil(grid / SMs) when the grid is smaller than one full wave). The SM server shares this rate among the
// resident blocks, so each block of W warps gets at most W x the per-warp rate when the SM is
// full. Tail waves with fewer resident blocks keep the full-occupancy rate (not modelled).
struct Residency {
    int warps_per_block = 1;
    std::int64_t blocks_per_sm = 1;  // the occupancy limit, or fewer when the grid does not fill it
};
Residency residency(const Launch& launch, const Occupancy& occ, int warp_size, int sm_count) {
    Residency res;
    res.warps_per_block = std::max(1, (launch.threads_per_block + warp_size - 1) / std::max(1, warp_size));
    const std::int64_t sms = std::max<std::int64_t>(1, sm_count);
    res.blocks_per_sm = std::min<std::int64_t>(std::max(1, occ.blocks_per_sm),
                                               std::max<std::int64_t>(1, (launch.blocks() + sms - 1) / sms));
    return res;
}

double tensor_rate(const Rates& r, const Residency& res) {
    // With the warp model on, the per-warp rate is part of each warp's serial time (WarpModel).
    if (!(r.tensor_flops_per_ns_per_warp > 0) || r.warp_model) return r.tensor_flops_per_ns;
    const double resident_warps = static_cast<double>(res.blocks_per_sm) * res.warps_per_block;
    return std::min(r.tensor_flops_per_ns, resident_warps * r.tensor_flops_per_ns_per_warp);
}

// Warp model (Calibration::warp_model, off by default). One warp of a block runs an iteration
// (a phase) serially in
//   t_warp = tensor / warps / per-warp tensor rate + warp_iteration_ns   (iterations of an mma
//            loop, i.e. phases with tensor work: the reduction / softmax / barrier that follows
//            the mma chain)
//            + warp_load_issue_ns_per_byte x global load bytes / threads
//            + warp_smem_read_ns_per_byte x shared-memory bytes read / warps
//            + warp_op_ns x (FP32 + SFU operations) / threads.
// The last three apply to every phase (a softmax step has scalar work and loads but no mma).
// The warps of a block run side by side on the SM's sub-partitions (SMSPs). With W resident
// warps per SM on a = min(SMSPs, W) sub-partitions, k = W / a warps share each one; k warps
// overlap each other's latencies and deliver k^g times one warp's throughput (g =
// warp_overlap_exponent), so each iteration takes t_warp x k^(1-g) when the SM is full.
// The SM server shares the SM among its resident blocks, so a block's phase is given the work
//   t_warp x k^(1-g) / B        (B resident blocks per SM)
// and a per-job cap so that a block alone on an SM (tail) takes t_warp x k_b^(1-g), k_b its own
// warps per sub-partition: cap = (k / k_b)^(1-g) / B. A phase's work is the larger of this and
// the pipe-throughput time (comp_ns as before).
// Worked example: flash2 Br x Bc = 128 x 64, d = 128, fp16, 8 warps, 1 block per SM, with a
// per-warp tensor rate of 250 FLOP/cycle (495 FLOP/ns at 1.98 GHz), 280 ns per iteration,
// 0.8 ns per load byte and g = 0.37. An iteration computes 4*128*64*128 = 4.19 MFLOP, i.e.
// 524,288 per warp = 1059 ns, and loads K and V (2*64*128*2 = 32 KiB, 128 B per thread of 256)
// = 102 ns: t_warp = 1059 + 280 + 102 = 1441 ns. W = 8, a = 4, k = k_b = 2: the phase's work is
// 1441 x 2^0.63 = 2232 ns and the cap 1.
// Issue form (Calibration::warp_issue_model = 1, docs/validation change 23). The same terms split
// in two: issue I = load issue + shared-memory reads + scalar ops (instructions a sub-partition's
// scheduler issues at most one per clock, so its k warps queue for them) and latency L = the mma
// chain, tensor / warps / per-warp tensor rate, plus warp_iteration_ns (a dependent chain that
// other warps' issue overlaps). The B resident blocks of an SM finish one iteration each in
// k x I + L, so a block's phase is given the work (k x I + L) / B; a block alone on an SM (tail)
// takes k_b x I + L, which the per-job cap (k I + L) / (B (k_b I + L)) gives for the launch's
// first mma phase (the cap is one number per SM server). Issue-slot use is k I / (k I + L) = k / (k + s), s = L / I: the
// law Nsight Compute measured (item 7 of "What would move the figures"), where the power law
// above overcharged blocks of few warps. Worked example: flash2 32 x 64, d = 64, 2 warps,
// 6 blocks per SM (k = 3): with I = 400 ns and L = 700 ns an iteration of the SM's six blocks
// takes 3 x 400 + 700 = 1900 ns, and each block's phase is given 1900 / 6 = 317 ns of work.
// Serial load issue (Calibration::warp_load_issue_serial = 1, docs/validation change 33): in the
// power law, the load-issue term ld of t_warp is not stretched with the rest but paid once per
// warp of the sub-partition: a block's phase is given ((t_warp - ld) k^(1-g) + k ld) / B, and a
// block alone on its SM takes (t_warp - ld) k_b^(1-g) + k_b ld, which the per-job cap gives for
// the launch's first mma phase (as in the issue form). Worked example: flash2 32 x 64, d = 64,
// 2 warps, 6 blocks per SM (k = 3, k_b = 1), g = 0.648: with t_warp = 652 ns of which ld = 245 ns
// the power law gives 652 x 3^0.352 / 6 = 160 ns, the serial form (407 x 1.472 + 3 x 245) / 6 =
// 222 ns.
struct WarpModel {
    bool on = false;
    bool issue_form = false;
    bool serial_load = false;                // Calibration::warp_load_issue_serial (change 33)
    bool queue_form = false;                 // Calibration::warp_queue_model (change 26)
    double k = 1, kb = 1, blocks = 1;        // warps per sub-partition (SM full, block alone), B
    double ns_per_tensor_flop_per_warp = 0;  // 0 when no per-warp tensor rate is set
    double iteration_ns = 0;
    double issue_ns_per_load_byte = 0;       // already divided by threads per block
    double issue_ns_per_store_byte = 0;      // the same for stores (change 76; 0 unless the law is on)
    double ns_per_smem_read_byte = 0;        // already divided by warps per block
    double ns_per_op = 0;                    // already divided by threads per block
    double inv_warps = 1;
    double work_scale = 1;                   // k^(1-g) / B
    double alone_scale = 1;                  // k_b^(1-g): a block alone on its SM
    double job_cap = 1;                      // (k / k_b)^(1-g) / B
    // One warp's time to issue its share of a phase's global loads and (change 76) stores: the
    // `gl` the functions below take.
    double global_issue(double load_bytes, double store_bytes) const {
        return issue_ns_per_load_byte * load_bytes + issue_ns_per_store_byte * store_bytes;
    }
    // The serial issue time of a phase with these block-wide amounts, times work_scale. The
    // fixed wait per mma iteration (iteration_ns: barriers, cp.async wait) is not in it: it is
    // the phase's comp_latency_ns, a wait before the phase's work joins the SM (start_comp).
    double work(double tensor, double gl, double smem_read_bytes, double ops) const {
        if (issue_form) return (k * issue(gl, smem_read_bytes, ops) + latency(tensor)) / blocks;
        if (queue_form) return kb * issue(gl, smem_read_bytes, ops);
        const double t_issue = (tensor > 0 ? tensor * inv_warps * ns_per_tensor_flop_per_warp : 0.0) +
                              gl + ns_per_smem_read_byte * smem_read_bytes +
                              ns_per_op * ops;
        if (serial_load) return (t_issue - gl) * work_scale + k * gl / blocks;
        return t_issue * work_scale;
    }
    // Power-law form: what a block alone on its SM takes for the same phase (its k_b warps per
    // sub-partition). With the serial load issue, work / alone is the per-job cap.
    double alone(double tensor, double gl, double smem_read_bytes, double ops) const {
        const double rest = (tensor > 0 ? tensor * inv_warps * ns_per_tensor_flop_per_warp : 0.0) +
                            ns_per_smem_read_byte * smem_read_bytes + ns_per_op * ops;
        return serial_load ? rest * alone_scale + kb * gl : (rest + gl) * alone_scale;
    }
    // Issue form: one warp's issue time and its mma chain for a phase with these block-wide amounts.
    double issue(double gl, double smem_read_bytes, double ops) const {
        return gl + ns_per_smem_read_byte * smem_read_bytes + ns_per_op * ops;
    }
    // The mma chain and, in an mma loop's iteration, the fixed warp_iteration_ns (barriers, the
    // softmax's reduction chain): Nsight Compute finds this latency alike for blocks of 2 and 8
    // warps, 1 and 6 blocks per SM, so in this form it is part of the iteration, not a wait
    // that other blocks' work could hide (the power law's comp_latency_ns).
    double latency(double tensor) const {
        return tensor > 0 ? tensor * inv_warps * ns_per_tensor_flop_per_warp + iteration_ns : 0.0;
    }
    // Issue form: the per-job cap that gives a block alone on its SM k_b x I + L for this phase;
    // 0 when the phase has no work.
    double issue_cap(double tensor, double gl, double smem_read_bytes, double ops) const {
        if (serial_load) {
            const double a = alone(tensor, gl, smem_read_bytes, ops);
            return a > 0 ? std::min(1.0, work(tensor, gl, smem_read_bytes, ops) / a) : 0.0;
        }
        const double i = issue(gl, smem_read_bytes, ops), l = latency(tensor);
        if (!(k * i + l > 0)) return 0.0;
        return std::min(1.0, (k * i + l) / (blocks * (kb * i + l)));
    }
};

WarpModel warp_model(const Rates& r, const Launch& launch, const Residency& res) {
    WarpModel m;
    if (!r.warp_model) return m;
    m.on = true;
    const double w = res.warps_per_block;
    const double b = static_cast<double>(res.blocks_per_sm);
    const double smsp = std::max(1, r.sm_subpartitions);
    const double k = b * w / std::min(smsp, b * w);
    const double kb = w / std::min(smsp, w);
    const double e = 1.0 - r.warp_overlap_exponent;
    m.ns_per_tensor_flop_per_warp = r.tensor_flops_per_ns_per_warp > 0 ? 1.0 / r.tensor_flops_per_ns_per_warp : 0.0;
    m.iteration_ns = r.warp_iteration_ns;
    m.issue_ns_per_load_byte = r.warp_load_issue_ns_per_byte / std::max(1, launch.threads_per_block);
    // Change 76: only launches whose stores are staged through shared memory (flash1's O_i every
    // inner step, flash2's O). Register stores (softmax's y) and fragment stores (the GEMM
    // kernel's epilogue, with its own fragment_store_* laws) are not charged.
    if (launch.staged_stores)
        m.issue_ns_per_store_byte = r.warp_store_issue_ns_per_byte / std::max(1, launch.threads_per_block);
    m.ns_per_smem_read_byte = r.warp_smem_read_ns_per_byte / w;
    m.ns_per_op = r.warp_op_ns / std::max(1, launch.threads_per_block);
    m.inv_warps = 1.0 / w;
    m.work_scale = std::pow(k, e) / b;
    m.alone_scale = std::pow(kb, e);
    m.serial_load = r.warp_load_issue_serial;
    m.job_cap = std::min(1.0, std::pow(k / kb, e) / b);
    m.issue_form = r.warp_issue_model;
    m.k = k;
    m.kb = kb;
    m.blocks = b;
    // Issue form: the cap is set from the launch's first phase with work (Engine::load_program);
    // until then, the issue-bound value.
    if (m.issue_form) m.job_cap = std::min(1.0, k / (kb * b));
    // Queue form: the latency is the phase's wait (comp_latency_ns) and the block's issue its
    // work, which the SM server shares among the resident blocks without a cap.
    m.queue_form = r.warp_queue_model;
    if (m.queue_form) m.job_cap = 1.0;
    return m;
}

// kFragServer: the fragment stores' own GPU-wide drain (Rates::fragment_store_own_drain; idle otherwise).
constexpr std::uint32_t kHbmServer = 0, kL2Server = 1, kFragServer = 2, kFirstSmServer = 3;

// What one block program adds to its launch's shared-memory and operation totals.
struct ProgramTotals {
    double smem_read = 0, smem_write = 0, flops_tensor = 0, flops_fp32 = 0, sfu_ops = 0;
    double warp_instructions = 0;  // StepKind::issue steps (the issue floor, change 59)
    ProgramTotals& operator+=(const ProgramTotals& t) {
        warp_instructions += t.warp_instructions;
        smem_read += t.smem_read;
        smem_write += t.smem_write;
        flops_tensor += t.flops_tensor;
        flops_fp32 += t.flops_fp32;
        sfu_ops += t.sfu_ops;
        return *this;
    }
};

class Engine {
public:
    Engine(SimState& st, const Launch& launch, std::size_t index, const Occupancy& occ)
        : st_(st), launch_(launch), index_(index), occ_(occ),
          sampler_(st.options->max_samples), sm_count_(st.hw->sm_count), far_share_(st.hw->l2_far_share()),
          residency_(residency(launch, occ, st.hw->warp_size_threads, st.hw->sm_count)),
          tensor_flops_per_ns_(tensor_rate(st.rates, residency_)), warp_(warp_model(st.rates, launch, residency_)),
          lrc_in_step_(residency_.blocks_per_sm == 1 ? st.rates.lrc_in_step_one_block
                                                      : st.rates.lrc_in_step_several_blocks),
          chain_on_(warp_.on && !warp_.issue_form && !warp_.queue_form && st.rates.warp_chain_ns_per_instruction > 0 &&
                    launch.chain_instructions > 0) {}

    Result<LaunchResult> run(double start_ns);

private:
    void push(double t, EventKind kind, std::uint32_t id) { events_.push(Event{t, seq_++, kind, id}); }
    void advance_server(std::uint32_t s);
    void reschedule(std::uint32_t s) { server_heap_.update(s, std::max(servers_[s].next_finish_ns(), now_)); }
    // Sets every SM server's per-job cap from now on (the work they hold keeps what it has done).
    void set_sm_job_cap(double cap) {
        sm_base_cap_ = cap;
        for (int sm = 0; sm < sm_count_; ++sm) apply_sm_cap(sm);
    }
    // SM `sm`'s per-job cap: the base cap and, with Rates::sm_share_resident (change 84), at most
    // 1/R of the SM, R its resident blocks.
    void apply_sm_cap(int sm) {
        double cap = sm_base_cap_;
        const int resident = sm_resident_.empty() ? 0 : sm_resident_[static_cast<std::size_t>(sm)];
        if (st_.rates.sm_share_resident && resident > 0) cap = std::min(cap, 1.0 / resident);
        const std::uint32_t id = kFirstSmServer + static_cast<std::uint32_t>(sm);
        advance_server(id);
        servers_[id].configure(1.0, cap);
        if (servers_[id].jobs() > 0) reschedule(id);
    }
    void serve(std::uint32_t s);
    void add_to_server(std::uint32_t s, double work, std::uint32_t job);
    std::uint32_t new_job(const Job& j);
    bool part_served(std::uint32_t job);  // true when the job completed right away
    void job_complete(std::uint32_t job);
    void start_comp(std::uint32_t job);  // a compute job's work joins its SM server
    Status load_program(Slot& slot, std::int64_t item);
    static void start_program(Slot& slot);
    // Adds `work` ns to a phase's work on its SM server beyond its pipes' (a fragment store's
    // issue, a shared wait): the pipes' shares of the phase shrink in proportion.
    static void add_sm_work(Phase& ph, double work);
    void coarsen(std::vector<Phase>& phases) const;
    // False (and st_.misaligned set) when `r` breaks the chunk size the sampled layout chose.
    bool aligned(std::uint32_t id, const Region& r) {
        if (r.rows == 0 || r.row_bytes == 0) return true;
        const std::int64_t mask = st_.layout.chunk_bytes[id] - 1;
        if (st_.layout.at_floor[id]) return true;  // at the sector floor: any access is fine
        std::int64_t bits = r.offset_bytes;
        if (r.rows == 1 || r.stride_bytes == r.row_bytes) bits |= r.rows * r.row_bytes;
        else bits |= r.row_bytes | r.stride_bytes;
        if ((bits & mask) == 0) return true;
        st_.misaligned = true;
        return false;
    }
    void begin_block(std::uint32_t slot_id);
    void advance_block(std::uint32_t slot_id);
    // Issue helpers return true when the part finished at once (nothing to wait for).
    bool issue_mem(std::uint32_t slot_id, std::uint32_t phase);
    // The memory round trip `base_ns` (ns) with `inflight` bytes of loads in flight GPU-wide:
    // Rates::load_latency_ns_per_tbps (c) adds c ns per TB/s those bytes move, L = base + c B / L
    // (Little's law), solved for L; base itself without the term or without a base.
    double queued_latency(double base_ns, double inflight) const { return queued_latency(base_ns, inflight, st_.rates.load_latency_ns_per_tbps); }
    double queued_latency(double base_ns, double inflight, double c) const;
    // A miss's round trip under Rates::latency_queue_dram: its growth with the bytes that missed, or
    // under Rates::latency_queue_shared_path (change 81) at the hits' slope with every byte in flight
    // plus the rest of the misses' slope with the bytes that missed.
    double miss_latency(double inflight, double dram_inflight) const {
        const double base = st_.rates.hbm_latency_ns;
        if (!st_.rates.latency_queue_shared_path) return queued_latency(base, dram_inflight);
        // A hits' slope above the misses' leaves the misses none of their own (not a negative one).
        const double ch = std::min(st_.rates.l2_hit_ns_per_tbps, st_.rates.load_latency_ns_per_tbps);
        // Both slopes folded into the bytes: c B / L with c = 1 is the sum of the two terms.
        const double weighted = ch * inflight + (st_.rates.load_latency_ns_per_tbps - ch) * dram_inflight;
        return queued_latency(base, weighted, 1.0);
    }
    // An L2 hit's round trip under Rates::latency_queue_dram: the bare L2 latency, or with
    // Rates::latency_queue_l2_hits (change 81) its growth with every load byte in flight (1) or
    // the hits' only (2).
    double hit_latency(double inflight, double dram_inflight) const {
        const double base = st_.rates.l2_latency_ns;
        switch (st_.rates.latency_queue_l2_hits) {
            case 1: return queued_latency(base, inflight, st_.rates.l2_hit_ns_per_tbps);
            case 2: return queued_latency(base, std::max(0.0, inflight - dram_inflight), st_.rates.l2_hit_ns_per_tbps);
            default: return base;
        }
    }
    // From issue to the earliest return of a streamed (coarsened, pipelined) phase's loads: what
    // its G iterations of the real pipeline take when latency-bound (see the definition).
    // `drain_ns`, `alone_ns`: the burst-drain term and the uncontended transfer of all G;
    // `narrow_ns`: the narrow-segment misses' extra round trip (change 62; 0 without it).
    // `inflight`, `dram_inflight`: the bytes in flight GPU-wide, all and L2 misses only.
    double streamed_window(const Phase& ph, std::uint32_t phase, std::uint32_t missing_steps,
                           std::uint32_t l1_steps, double drain_ns, double alone_ns, double inflight,
                           double dram_inflight, double narrow_ns) const;
    // The queueing term's share of a round trip that mixes `miss` HBM and `l2` L2 latencies
    // (0 without the term): the mixed latency's growth with all bytes in flight, or, under
    // Rates::latency_queue_dram (change 65), the misses' HBM latency's growth with the bytes in
    // flight that missed.
    double queue_extra(double miss, double l2, double inflight, double dram_inflight) const {
        if (st_.rates.latency_queue_dram)
            return miss * (miss_latency(inflight, dram_inflight) - st_.rates.hbm_latency_ns) +
                   l2 * (hit_latency(inflight, dram_inflight) - st_.rates.l2_latency_ns);
        const double memory = miss * st_.rates.hbm_latency_ns + l2 * st_.rates.l2_latency_ns;
        return queued_latency(memory, inflight) - memory;
    }
    // A phase's compute with its block alone on the SM (at the SM server's per-job rate; every
    // SM server is configured alike), without the warp model's fixed wait.
    double comp_alone_ns(const Phase& ph) const {
        return ph.comp_ns > 0 ? ph.comp_ns / servers_[kFirstSmServer].solo_rate() : 0.0;
    }
    // Loads bytes [a, b) of buffer `id` through an SM's L1: hit chunks stay there, runs of missing
    // chunks go to the L2 (into acc) and are then kept in L1. Returns the bytes L1 served.
    std::int64_t load_through_l1(L1Cache& l1, int part, std::uint32_t id, std::int64_t a, std::int64_t b, L2Access& acc);
    bool issue_store(std::uint32_t slot_id, std::uint32_t phase);
    // L2 request coalescer: the expected bytes of load phase `phase` of the block in `slot_id`
    // that join a request for the same region already on its way (Calibration::lrc_model).
    // `ready_ns` is raised to the earliest a joined request can be back: a merged request returns
    // with the one it joined.
    double lrc_merged_bytes(std::uint32_t slot_id, std::uint32_t phase, double& ready_ns);
    void finish_block(std::uint32_t slot_id);
    void dispatch(std::uint32_t slot_id);

    SimState& st_;
    const Launch& launch_;
    std::size_t index_;
    const Occupancy& occ_;
    Sampler sampler_;
    int sm_count_;
    double far_share_;  // share of L2 lines homed in a far partition (second lookup)
    Residency residency_;
    double tensor_flops_per_ns_;  // one SM's tensor rate for this launch (latency limit applied)
    WarpModel warp_;
    double issue_cap_ = 0;              // issue form: the SM servers' per-job cap (load_program)
    double sm_base_cap_ = 1;            // the SM servers' per-job cap before change 84's share
    std::vector<int> sm_resident_;      // per SM: slots holding a block (Rates::sm_share_resident)
    bool issue_phase_cap_ = false;      // issue_phase_work: the cap set to min(1, w / 4) (load_program)
    bool issue_cap_from_mma_ = false;   // ... set from an mma phase (final)
    // ns per stored byte a fragment-store phase adds to its SM's work (0 unless the launch
    // stores fragments and the profile sets Rates::fragment_store_issue_ns_per_byte).
    double store_issue_ns_per_byte_ = 0;
    // Launch::loads_after_wait with stages >= 2 and Rates::pipeline_wait_then_issue (change 36).
    bool wait_then_issue_ = false;
    // The part of this launch's fixed iteration wait that is shared SM work: 1 where
    // Rates::warp_wait_shared applies (1: every launch; 2: not a wait-then-issue one, change 88),
    // Rates::warp_wait_shared_part for a wait-then-issue one under 2 (change 96), else 0. Set by run().
    double wait_shared_part_ = 0;
    // The stages the loop's order uses: the launch's, or 1 where Rates::pipeline_serial applies
    // (change 63: a block's loads wait for its compute). Set by run().
    int stages_ = 1;
    // Rates::pipeline_additive applies to this launch (change 64). Set by run().
    bool additive_ = false;
    // ns per byte per thread of a load phase's burst: the drain term or, for the launches
    // Rates::pipelined_load_burst_issue names, the load-issue cost (changes 53, 54).
    double burst_ns_per_byte_ = 0;
    // Rates::hbm_activation_bytes > 0: issue_mem counts the DRAM pages a load's misses open (change 37).
    bool count_pages_ = false;
    // Rates::l2_fill_in_flight: the L2 keeps a clock, and a load that hits a chunk whose fill is
    // still in flight waits for it (change 43). clock_base_ turns this launch's clock into the
    // prediction's (the L2 carries over from launch to launch).
    bool fill_clock_ = false;
    double clock_base_ = 0;
    double lrc_in_step_;  // chance that blocks reading the same tile start in step (0: no coalescer)
    double lrc_merged_ = 0;  // expected read bytes the coalescer merged
    double inflight_bytes_ = 0;  // loads issued and not back, one iteration's bytes per phase
    double dram_inflight_bytes_ = 0;  // the same, L2 misses only (Rates::latency_queue_dram)
    // Requests on their way that a request for the same region may still join: region -> when it
    // was issued, when it can be back. A joined entry is removed (requests merge in pairs).
    struct LrcKey {
        std::uint32_t buffer;
        std::int64_t offset, row_bytes, rows, stride;
        bool operator==(const LrcKey& o) const {
            return buffer == o.buffer && offset == o.offset && row_bytes == o.row_bytes && rows == o.rows &&
                   stride == o.stride;
        }
    };
    struct LrcKeyHash {
        std::size_t operator()(const LrcKey& k) const {
            std::uint64_t h = 1469598103934665603ull;
            for (const std::uint64_t v : {static_cast<std::uint64_t>(k.buffer), static_cast<std::uint64_t>(k.offset),
                                          static_cast<std::uint64_t>(k.row_bytes), static_cast<std::uint64_t>(k.rows),
                                          static_cast<std::uint64_t>(k.stride)})
                h = (h ^ v) * 1099511628211ull;
            return static_cast<std::size_t>(h);
        }
    };
    static LrcKey lrc_key(const Region& r) { return {r.buffer, r.offset_bytes, r.row_bytes, r.rows, r.stride_bytes}; }
    struct LrcPending {
        double issued_ns, ready_ns;
        std::int64_t block;  // the block (launch order) that issued it
    };
    std::unordered_map<LrcKey, LrcPending, LrcKeyHash> lrc_pending_;
    std::size_t lrc_sweep_at_ = 4096;  // table size at which stale entries are dropped
    std::vector<std::uint8_t> lrc_joined_;  // per load of the current phase: it joined a pending one
    std::int64_t blocks_ = 0, next_block_ = 0, slots_per_wave_ = 0;
    double now_ = 0;
    std::uint64_t seq_ = 0;
    std::priority_queue<Event> events_;
    std::vector<PsServer> servers_;
    ServerHeap server_heap_;
    std::vector<std::array<double, kUnits>> sm_frac_;  // per SM: sum of active comp jobs' fractions
    std::vector<Job> jobs_;
    std::vector<std::uint32_t> free_jobs_;
    std::vector<std::uint32_t> done_;
    std::vector<Slot> slots_;
    std::vector<Step> scratch_;  // program of the block being loaded
    // Programs built so far, by the work item others repeat (Launch::repeat_of), with their
    // regions where that item has them; at most kMaxProgramRegions regions in all.
    struct Program {
        std::vector<Phase> phases;
        std::vector<Region> loads, stores;
        ProgramTotals totals;
    };
    static constexpr std::size_t kMaxProgramRegions = std::size_t{1} << 18;
    std::unordered_map<std::int64_t, Program> programs_;
    std::size_t program_regions_ = 0;
    std::vector<std::int64_t> shift_;
    Status error_;
    mutable std::int64_t max_group_ = 1;  // largest coarsening factor used
    // load_program's last phase amounts (smem, tensor, fp32, sfu), its global load and shared
    // memory read bytes (warp model only) and the times derived from them.
    std::array<double, kUnits> memo_amount_{}, memo_frac_{};
    double memo_load_bytes_ = 0, memo_store_bytes_ = 0, memo_smem_read_ = 0, memo_issue_ = 0;
    double memo_comp_ns_ = 0;
    double memo_ld_ns_ = 0;  // the serial load issue's part of memo_comp_ns_ (Phase::warp_ld_ns)
    double memo_lone_ns_ = 0;  // memo_comp_ns_'s phase for a block alone on its SM (change 56)
    // The instruction-chain wait applies (change 56): power-law warp model, a chain cost in the
    // profile and the launch's instructions per iteration known.
    bool chain_on_ = false;
    // Calibration::warp_smsp_pacing (change 52): per slot index on an SM, the factors its blocks'
    // SM work takes, (k_s / k)^(1-g) for the stretched terms and k_s / k for the serial load
    // issue (Phase::warp_ld_ns), one per slot index. Empty when the launch's blocks load the
    // sub-partitions evenly (or the flag is off): every factor would be 1.
    struct SlotPace {
        double stretched = 1, serial_load = 1;  // (k_s / k)^(1-g), k_s / k
    };
    std::vector<SlotPace> smsp_pace_;
    LaunchResult out_;
    // Totals (integers for bytes so that L2-off runs equal analytic() exactly).
    std::int64_t load_bytes_ = 0, store_bytes_ = 0, hit_bytes_ = 0, fill_bytes_ = 0, writeback_bytes_ = 0;
    std::int64_t far_bytes_ = 0;  // second lookups at a far home partition (partitioned L2)
    // L1 (Launch::l1_cached_loads with a profile that has one, L2 model on): one per SM, emptied
    // at the launch's start. Hits never reach the L2.
    std::vector<L1Cache> l1_;
    // Change 61: per SM, the change-60 store waits its blocks have begun, in all.
    std::vector<double> sm_store_wait_ns_;
    bool store_paused(std::uint32_t job);  // true when the job is put back by other blocks' store waits
    bool compute_paused(std::uint32_t job);  // true when a load is put back by its block's compute (change 64)
    double comp_busy(const Slot& slot) const {
        return slot.comp_busy_ns + (slot.comp_started_ns >= 0 ? now_ - slot.comp_started_ns : 0.0);
    }
    // Sector bytes the L2 handles per stored byte (Launch::fragment_store_row_bytes).
    std::int64_t sector_factor_ = 1;
    std::int64_t l1_hit_bytes_ = 0;
    ProgramTotals totals_;  // the launch's: every loaded program's, summed
};

void Engine::add_sm_work(Phase& ph, double work) {
    const double keep = ph.comp_ns / (ph.comp_ns + work);
    for (double& f : ph.frac) f *= keep;
    ph.comp_ns += work;
}

void Engine::advance_server(std::uint32_t s) {
    PsServer& srv = servers_[s];
    const double a = srv.last_ns();
    if (now_ > a && srv.jobs() > 0) {
        if (s == kHbmServer) {
            sampler_.add(kHbm, a, now_, srv.throughput());
        } else if (s == kL2Server) {
            sampler_.add(kL2, a, now_, srv.throughput());
        } else if (s >= kFirstSmServer) {
            const auto& f = sm_frac_[s - kFirstSmServer];
            const double n = static_cast<double>(srv.jobs());
            constexpr std::array<Res, kUnits> kRes = {kSmem, kTensor, kFp32, kSfu};
            for (std::size_t u = 0; u < kUnits; ++u) {
                if (f[u] > 0) sampler_.add(kRes[u], a, now_, f[u] / n);
            }
        }
    }
    srv.advance(now_);
}

void Engine::add_to_server(std::uint32_t s, double work, std::uint32_t job) {
    advance_server(s);
    servers_[s].add(work, job);
    reschedule(s);
}

std::uint32_t Engine::new_job(const Job& j) {
    if (!free_jobs_.empty()) {
        const std::uint32_t id = free_jobs_.back();
        free_jobs_.pop_back();
        jobs_[id] = j;
        return id;
    }
    jobs_.push_back(j);
    return static_cast<std::uint32_t>(jobs_.size() - 1);
}

void Engine::coarsen(std::vector<Phase>& phases) const {
    const std::int64_t g = coarsen_phases(phases, st_.options->phase_budget, blocks_, stages_ <= 1,
                                            launch_.reread_period);
    max_group_ = std::max(max_group_, g);
}

Status Engine::load_program(Slot& slot, std::int64_t item) {
    // A block that repeats an earlier one's program on other slices of its buffers
    // (Launch::repeat_of) copies that program's phases and moves its regions: the same phases the
    // steps below would give, without lowering and grouping them again. Only with the L2 model
    // on, whose layout pre-pass has checked the regions (with it off every region is checked
    // here); Options::reuse_programs = false turns it off (the tests compare both).
    std::int64_t twin = -1;
    if (launch_.repeat_of && st_.options->l2 && st_.options->reuse_programs) {
        shift_.assign(launch_.buffers.size(), 0);
        twin = launch_.repeat_of(item, shift_);
        const auto hit = programs_.find(twin);
        if (hit != programs_.end()) {
            const Program& p = hit->second;
            slot.phases = p.phases;
            slot.loads = p.loads;
            slot.stores = p.stores;
            for (Region& r : slot.loads) r.offset_bytes += shift_[r.buffer];
            for (Region& r : slot.stores) r.offset_bytes += shift_[r.buffer];
            totals_ += p.totals;
            start_program(slot);
            return {};
        }
    }
    // This program's totals, added to the launch's at the end (whole numbers of bytes and
    // operations, so the sums are exact in any order).
    ProgramTotals totals;
    std::vector<Step>& steps = scratch_;
    steps.clear();
    slot.phases.clear();
    slot.loads.clear();
    slot.stores.clear();
    launch_.program(item, steps);
    const Rates& r = st_.rates;
    const auto n = static_cast<std::uint32_t>(steps.size());
    std::uint32_t i = 0;
    while (i < n) {
        Phase ph;
        ph.load_begin = ph.load_end = static_cast<std::uint32_t>(slot.loads.size());
        ph.store_begin = ph.store_end = static_cast<std::uint32_t>(slot.stores.size());
        const std::int32_t it = steps[i].iteration;
        double smem = 0, smem_read = 0, tensor = 0, fp32 = 0, sfu = 0, load_bytes = 0, store_bytes = 0, reductions = 0,
               instr = 0;
        for (; i < n && steps[i].iteration == it; ++i) {
            const Step& s = steps[i];
            switch (s.kind) {
                case StepKind::load:
                case StepKind::store: {
                    if (!st_.options->l2) {  // not validated by the layout pre-pass
                        auto ok = check_region(launch_, s.region, item);
                        if (!ok) return ok.error();
                    }
                    (s.kind == StepKind::load ? load_bytes : store_bytes) += static_cast<double>(s.region.bytes());
                    (s.kind == StepKind::load ? ph.has_load : ph.has_store) = true;
                    (s.kind == StepKind::load ? slot.loads : slot.stores).push_back(s.region);
                    break;
                }
                case StepKind::smem_read: smem += s.amount; smem_read += s.amount; totals.smem_read += s.amount; break;
                case StepKind::smem_write: smem += s.amount; totals.smem_write += s.amount; break;
                case StepKind::smem_fill:  // cp.async's tile: the pipe's time unless fills bypass it
                    if (!r.smem_fill_bypass) smem += s.amount;
                    totals.smem_write += s.amount;
                    break;
                case StepKind::compute:
                    if (s.unit == Unit::tensor) { tensor += s.amount; totals.flops_tensor += s.amount; }
                    else if (s.unit == Unit::fp32) { fp32 += s.amount; totals.flops_fp32 += s.amount; }
                    else { sfu += s.amount; totals.sfu_ops += s.amount; }
                    break;
                case StepKind::barrier: break;
                case StepKind::reduction: reductions += s.amount; break;
                case StepKind::issue: totals.warp_instructions += s.amount; instr += s.amount; break;
            }
        }
        ph.load_end = static_cast<std::uint32_t>(slot.loads.size());
        ph.store_end = static_cast<std::uint32_t>(slot.stores.size());
        const std::array<double, kUnits> amount = {smem, tensor, fp32, sfu};
        // Consecutive iterations (and blocks) mostly repeat the same amounts: reuse the last
        // phase's times instead of redoing the eight divisions (the same inputs give the same
        // bits, so results are unchanged).
        if (amount != memo_amount_ || instr != memo_issue_ ||
            (warp_.on && (load_bytes != memo_load_bytes_ || store_bytes != memo_store_bytes_ ||
                          smem_read != memo_smem_read_))) {
            const double gl = warp_.on ? warp_.global_issue(load_bytes, store_bytes) : 0.0;
            const std::array<double, kUnits> rate = {r.smem_bytes_per_ns, tensor_flops_per_ns_,
                                                     r.fp32_flops_per_ns, r.sfu_ops_per_ns};
            std::array<double, kUnits> t{};
            double comp_ns = 0;
            for (std::size_t u = 0; u < kUnits; ++u) {
                if (amount[u] <= 0) continue;
                if (!(rate[u] > 0)) {
                    static constexpr std::array<const char*, kUnits> kWhat = {
                        "shared-memory bandwidth", "tensor-core throughput", "FP32 throughput", "SFU throughput"};
                    return make_error("launch " + launch_.name + " needs " + kWhat[u] + " but profile " +
                                      st_.hw->name + " gives it no rate (field is 0)");
                }
                t[u] = amount[u] / rate[u];
                comp_ns = std::max(comp_ns, t[u]);
            }
            double ld_ns = 0;
            // What the phase's work takes a block alone on its SM (the instruction-chain wait,
            // change 56): its slowest pipe, or its warps' serial time with only its own warps.
            // Only the chain needs it (chain_on_ implies the power-law form).
            const double lone_ns =
                chain_on_ ? std::max(comp_ns, warp_.alone(tensor, gl, smem_read, fp32 + sfu)) : 0.0;
            if (warp_.on) {
                const double w = warp_.work(tensor, gl, smem_read, fp32 + sfu);
                if (w > comp_ns) {
                    comp_ns = w;
                    // The serial load (and, change 76, staged store) issue's part (warp_.work's
                    // k x gl / B), when it is the warp model's time that the phase takes.
                    // (Loads and stores summed term by term, not k x gl / B: the load term keeps
                    // the bits it had before change 76.)
                    if (warp_.serial_load)
                        ld_ns = warp_.k * warp_.issue_ns_per_load_byte * load_bytes / warp_.blocks +
                                warp_.k * warp_.issue_ns_per_store_byte * store_bytes / warp_.blocks;
                }
            }
            // The phase's warp-instructions as SM work (Calibration::issue_phase_work, change 72): at
            // least the SM's issue time for them; the pipes' shares below shrink accordingly.
            if (r.issue_phase_work && instr > 0) {
                const double issue_ns = instr * r.ns_per_issued_instruction;
                if (issue_ns > comp_ns) {
                    comp_ns = issue_ns;
                    ld_ns = 0;
                }
            }
            std::array<double, kUnits> frac{};
            if (comp_ns > 0) {
                for (std::size_t u = 0; u < kUnits; ++u) frac[u] = t[u] / comp_ns;
            }
            memo_amount_ = amount;
            memo_issue_ = instr;
            memo_load_bytes_ = load_bytes;
            memo_store_bytes_ = store_bytes;
            memo_smem_read_ = smem_read;
            memo_comp_ns_ = comp_ns;
            memo_ld_ns_ = ld_ns;
            memo_lone_ns_ = lone_ns;
            memo_frac_ = frac;
        }
        // Issue form: the SM servers' per-job cap from the launch's first mma phase (or, until
        // one is seen, its first phase with work). The first block's program is built before
        // any of its work joins a server, so the cap holds from the start.
        if ((warp_.issue_form || warp_.serial_load) && !issue_cap_from_mma_ && (tensor > 0 || !(issue_cap_ > 0))) {
            const double cap =
                warp_.issue_cap(tensor, warp_.global_issue(load_bytes, store_bytes), smem_read, fp32 + sfu);
            if (cap > 0) {
                issue_cap_ = cap;
                issue_cap_from_mma_ = tensor > 0;
                set_sm_job_cap(cap);
            }
        }
        // Instructions as phase work (change 72): a block issues at most one instruction per clock
        // on each sub-partition its warps sit on, so its share of the SM is min(1, w / 4), in
        // place of the cap the warp model set (on the data set's softmax and naive attention
        // launches that cap is never above this one).
        if (r.issue_phase_work && instr > 0 && !issue_phase_cap_) {
            issue_phase_cap_ = true;
            const double own = std::min(1.0, static_cast<double>(launch_.threads_per_block) / 32.0 /
                                                 static_cast<double>(std::max(1, r.sm_subpartitions)));
            const double was = issue_cap_ > 0 ? issue_cap_ : (warp_.on ? warp_.job_cap : 1.0);
            if (own != was) {
                issue_cap_ = own;
                set_sm_job_cap(own);
            }
        }
        ph.first_iteration = static_cast<std::uint32_t>(slot.phases.size());
        // The power law's wait grows with the bytes the block's tiles load in the iteration
        // (change 45, Calibration::warp_fill_wait_ns_per_byte; 0 adds nothing).
        ph.comp_latency_ns = (warp_.on && !warp_.issue_form && tensor > 0)
                                 ? (warp_.queue_form ? warp_.latency(tensor)
                                                     : warp_.iteration_ns + r.warp_fill_wait_ns_per_byte * load_bytes)
                                 : 0.0;
        // The instruction-chain wait (change 56, Calibration::warp_chain_ns_per_instruction): where
        // the launch knows its warps' instructions per iteration, a lone block's iteration is the
        // chain, so the wait is the chain less the block's own work.
        if (chain_on_ && tensor > 0)
            ph.comp_latency_ns =
                std::max(0.0, r.warp_chain_ns + r.warp_chain_ns_per_instruction * launch_.chain_instructions - memo_lone_ns_);
        ph.comp_ns = memo_comp_ns_;
        ph.warp_ld_ns = memo_ld_ns_;
        ph.frac = memo_frac_;
        // A shared wait (Calibration::warp_wait_shared, change 48): the power law's wait becomes
        // wait / B of work on the SM server, where the B resident blocks share it, so B blocks take
        // wait + B x work per iteration in step or out of step (a block alone on an SM: wait +
        // work when B is 1).
        // Change 96 (Calibration::warp_wait_shared_part): a wait-then-issue launch under
        // warp_wait_shared 2 shares only that part of it; the rest stays a wait.
        if (wait_shared_part_ > 0 && warp_.on && !warp_.issue_form && !warp_.queue_form && ph.comp_latency_ns > 0) {
            add_sm_work(ph, wait_shared_part_ * ph.comp_latency_ns / warp_.blocks);
            ph.comp_latency_ns *= 1.0 - wait_shared_part_;
        }
        // Block-wide reductions (softmax: a row's max and sum): a dependent chain that every warp
        // of the block waits for, hidden only by other blocks' work, like the fixed wait above.
        ph.comp_latency_ns += reductions * r.block_reduction_ns;
        // Fragment stores take the SM this long to issue (change 35): work on the SM server,
        // shared with the other resident blocks; the pipes' shares shrink accordingly.
        if (store_issue_ns_per_byte_ > 0 && ph.has_store) {
            double stored = 0;
            for (std::uint32_t k = ph.store_begin; k < ph.store_end; ++k) stored += static_cast<double>(slot.stores[k].bytes());
            const double issue = stored * store_issue_ns_per_byte_;
            if (issue > 0) add_sm_work(ph, issue);
        }
        ph.smem_bytes = smem;
        slot.phases.push_back(ph);
    }
    coarsen(slot.phases);
    totals_ += totals;
    if (twin >= 0 && program_regions_ + slot.loads.size() + slot.stores.size() <= kMaxProgramRegions) {
        Program& p = programs_[twin];
        p.phases = slot.phases;
        p.loads = slot.loads;
        p.stores = slot.stores;
        for (Region& g : p.loads) g.offset_bytes -= shift_[g.buffer];
        for (Region& g : p.stores) g.offset_bytes -= shift_[g.buffer];
        p.totals = totals;
        program_regions_ += p.loads.size() + p.stores.size();
    }
    start_program(slot);
    return {};
}

// A freshly loaded program: no phase issued, computed or done.
void Engine::start_program(Slot& slot) {
    slot.mem_done.assign(slot.phases.size(), 0);
    slot.next_mem = slot.next_comp = slot.comp_done = 0;
    slot.comp_running = false;
    slot.comp_waiting = -1;
}

void Engine::dispatch(std::uint32_t slot_id) {
    Slot& slot = slots_[slot_id];
    if (next_block_ >= blocks_) return;
    slot.busy = true;
    if (!sm_resident_.empty()) ++sm_resident_[static_cast<std::size_t>(slot.sm)];
    slot.block = next_block_++;
    slot.next_item = slot.block;
    slot.start_ns = now_;
    slot.hbm_bytes = slot.l2_bytes = slot.smem_bytes = 0;
    slot.outstanding = 0;
    double overhead = st_.rates.block_overhead_ns;
    // Change 65 (Rates::block_start_spread): a block after the first wave starts after
    // overhead x (1 + a (2u - 1)), u in [0, 1) from splitmix64 of its index.
    if (st_.rates.block_start_spread > 0 && slot.block >= slots_per_wave_) {
        const double u = static_cast<double>(splitmix64(static_cast<std::uint64_t>(slot.block)) >> 11) * 0x1.0p-53;
        overhead *= 1.0 + st_.rates.block_start_spread * (2.0 * u - 1.0);
    }
    // Change 96: the GEMM kernel's prologue and epilogue, beyond the launch-wide overhead.
    if (wait_then_issue_) overhead += st_.rates.wait_then_issue_block_ns;
    push(now_ + overhead, EventKind::block_start, slot_id);
}

void Engine::begin_block(std::uint32_t slot_id) {
    Slot& slot = slots_[slot_id];
    Status ok = load_program(slot, slot.next_item);
    if (!ok && error_.ok()) error_ = ok;
    if (!ok) return;
    advance_block(slot_id);
}

bool Engine::issue_mem(std::uint32_t slot_id, std::uint32_t phase) {
    Slot& slot = slots_[slot_id];
    const Phase& ph = slot.phases[phase];
    if (!ph.has_load) return true;
    L2Access acc;
    const auto& ids = st_.layout.ids[index_];
    const int part = st_.options->l2 ? st_.l2.partition_of_sm(slot.sm) : 0;
    std::uint32_t missing_steps = 0;  // load steps that needed HBM
    std::int64_t pages_opened = 0;    // DRAM pages the misses open (per row segment)
    double narrow_ns = 0;             // extra round trip of the slowest narrow-segment miss (change 62)
    std::uint32_t l1_steps = 0;       // load steps served by L1 alone
    std::int64_t l1_hits = 0;
    L1Cache* l1 = l1_.empty() ? nullptr : &l1_[static_cast<std::size_t>(slot.sm)];
    // Change 43: a fill issued now lands one (scaled) HBM latency later, and a load that hits a
    // chunk still being filled gets its data with that fill.
    if (fill_clock_) st_.l2.set_clock(clock_base_ + now_, clock_base_ + now_ + st_.rates.hbm_latency_ns);
    for (std::uint32_t k = ph.load_begin; k < ph.load_end; ++k) {
        const Region& r = slot.loads[k];
        const std::int64_t fill_before = acc.fill_bytes, requested_before = acc.requested_bytes;
        const std::int64_t pending_before = acc.pending_bytes;
        if (!st_.options->l2) {
            acc.requested_bytes += r.bytes();
            acc.fill_bytes += r.bytes();
            missing_steps += r.bytes() > 0 ? 1u : 0u;
            continue;
        }
        const std::uint32_t id = ids[r.buffer];
        if (!aligned(id, r)) return true;  // run() notices st_.misaligned and stops
        if (l1) {
            for_each_byte_range(r, [&](std::int64_t a, std::int64_t b) { l1_hits += load_through_l1(*l1, part, id, a, b, acc); });
        } else {
            for_each_byte_range(r, [&](std::int64_t a, std::int64_t b) {
                const std::int64_t before = acc.fill_bytes;
                st_.l2.load(part, id, a, b, acc);
                // DRAM pages this row's misses open (change 37; counted only when they can bind).
                if (count_pages_ && acc.fill_bytes > before)
                    pages_opened += (acc.fill_bytes - before + kHbmPageBytes - 1) / kHbmPageBytes;
            });
        }
        // A step whose data comes with a fill in flight waits as a miss does (change 43).
        missing_steps += (acc.fill_bytes > fill_before || acc.pending_bytes > pending_before) ? 1u : 0u;
        // Rows a DRAM page or more apart that missed: narrow segments' longer round trip (change 62).
        if (st_.rates.hbm_narrow_segment_ns > 0 && acc.fill_bytes > fill_before && r.rows > 1 &&
            r.stride_bytes >= kHbmPageBytes && r.row_bytes < r.stride_bytes)
            narrow_ns = std::max(narrow_ns, st_.rates.hbm_narrow_segment_ns *
                                                std::min(1.0, 64.0 / static_cast<double>(std::max<std::int64_t>(1, r.row_bytes))));
        l1_steps += (l1 && acc.requested_bytes == requested_before && r.bytes() > 0) ? 1u : 0u;
    }
    // A joined request, or a fill in flight that a hit waits for, can be back no sooner.
    double joined_ready_ns = acc.pending_bytes > 0 ? acc.pending_until_ns - clock_base_ : 0.0;
    const double merged = (lrc_in_step_ > 0 && st_.options->l2 && !l1)
                              ? std::min(lrc_merged_bytes(slot_id, phase, joined_ready_ns),
                                         static_cast<double>(acc.requested_bytes))
                              : 0.0;
    lrc_merged_ += merged;
    l1_hit_bytes_ += l1_hits;
    load_bytes_ += acc.requested_bytes;
    hit_bytes_ += acc.hit_bytes;
    far_bytes_ += acc.far_bytes;
    fill_bytes_ += acc.fill_bytes;
    writeback_bytes_ += acc.writeback_bytes;
    const double hbm_bytes = static_cast<double>(acc.fill_bytes + acc.writeback_bytes);
    // HBM work: its bytes, or, when the misses are narrow row segments each in its own DRAM page,
    // the time the HBM needs to open those pages (Rates::hbm_activation_bytes per page, change 37).
    const double hbm = std::max(hbm_bytes, static_cast<double>(pages_opened) * st_.rates.hbm_activation_bytes);
    const double requested = static_cast<double>(acc.requested_bytes);
    // Merged requests never reach an L2 slice, and they are taken off the L2's work too: the
    // slices, not the crossbar, are taken to bind. (On the H100 the crossbar still delivers a
    // merged sector to both SMs, lrc__xbar2gpc = every requested sector; charging the L2 server
    // for them too was tried on 2026-11-24 and, refitted, fitted the training half worse:
    // time MAPE 10.27% against 9.89%, docs/validation change 8.)
    const double l2 = requested - merged;
    slot.hbm_bytes += hbm_bytes;
    slot.l2_bytes += l2;
    Job j;
    j.slot = slot_id;
    j.phase = phase;
    j.kind = JobKind::mem;
    j.pending = static_cast<std::uint8_t>((hbm > 0) + (l2 > 0));
    const double loaded = requested + static_cast<double>(l1_hits);
    // The burst term, per byte of the block (burst_ns_per_byte_, chosen per launch).
    const double per_byte = burst_ns_per_byte_ > 0 ? burst_ns_per_byte_ / std::max(1, launch_.threads_per_block) : 0.0;
    // Uncontended transfer time: the job alone at each server's per-job rate.
    double alone_ns = 0;
    if (l2 > 0) alone_ns = std::max(alone_ns, l2 / servers_[kL2Server].solo_rate());
    if (hbm > 0) alone_ns = std::max(alone_ns, hbm / servers_[kHbmServer].solo_rate());
    // The bytes this phase keeps in flight while it waits: one iteration's requests (a coarsened
    // phase stands for `iterations` of them in sequence; a streamed one keeps up to `stages` of
    // them in flight). L1 hits never reach the memory system.
    const double iterations = std::max<double>(1, ph.iterations);
    const double window = ph.streamed ? std::min(iterations, static_cast<double>(stages_)) : 1.0;
    j.inflight_bytes = requested / iterations * window;
    const double inflight = inflight_bytes_ + j.inflight_bytes;
    // Change 65: the misses' share of those bytes, for a queueing term that counts DRAM traffic only.
    if (st_.rates.latency_queue_dram) j.dram_inflight_bytes = static_cast<double>(acc.fill_bytes) / iterations * window;
    const double dram_inflight = dram_inflight_bytes_ + j.dram_inflight_bytes;
    if (ph.streamed) {
        // The window covers the transfer too: the latency is what it leaves.
        j.latency_ns = std::max(0.0, streamed_window(ph, phase, missing_steps, l1_steps, loaded * per_byte, alone_ns,
                                                     inflight, dram_inflight, narrow_ns) -
                                         alone_ns);
    } else {
        // One phase: HBM latency if anything missed, else L2 latency, else (all L1 hits) L1
        // latency. A coarsened serial phase pays one latency per iteration: HBM's for the share
        // of its load steps that missed, L1's for the share that L1 served alone, L2's for the rest.
        if (ph.latency_scale <= 1) {
            const bool dram = st_.rates.latency_queue_dram;
            j.latency_ns = (acc.fill_bytes > 0 || acc.pending_bytes > 0)
                               ? (dram ? miss_latency(inflight, dram_inflight)
                                       : queued_latency(st_.rates.hbm_latency_ns, inflight)) + narrow_ns
                               : (requested > 0 ? (dram ? hit_latency(inflight, dram_inflight)
                                                        : queued_latency(st_.rates.l2_latency_ns, inflight))
                                                : (l1_hits > 0 ? st_.rates.l1_latency_ns : 0.0));
        } else {
            const double steps = static_cast<double>(ph.load_end - ph.load_begin);
            const double miss_share = static_cast<double>(missing_steps) / steps;
            const double l1_share = static_cast<double>(l1_steps) / steps;
            j.latency_ns = ph.latency_scale * (miss_share * (st_.rates.hbm_latency_ns + narrow_ns) +
                                               l1_share * st_.rates.l1_latency_ns +
                                               std::max(0.0, 1 - miss_share - l1_share) * st_.rates.l2_latency_ns +
                                               queue_extra(miss_share, std::max(0.0, 1 - miss_share - l1_share),
                                                           inflight, dram_inflight));  // 0 without the term
        }
        // Burst drain: the last of a thread's requests returns later the more it loads (a coarsened
        // serial phase holds G iterations' bytes, i.e. G bursts paid in sequence).
        if (loaded > 0 && per_byte > 0) j.latency_ns += per_byte * loaded;
    }
    j.begin_ns = now_;
    j.comp_mark_ns = additive_ ? comp_busy(slot) : 0.0;
    if (j.pending == 0 && j.latency_ns <= 0) return true;
    j.earliest_done_ns = std::max(now_ + alone_ns + j.latency_ns, joined_ready_ns);
    // The regions this phase requested and did not merge can be joined until they are back.
    if (lrc_in_step_ > 0 && st_.options->l2 && !l1) {
        for (std::uint32_t k = ph.load_begin; k < ph.load_end; ++k) {
            const Region& r = slot.loads[k];
            if (!lrc_joined_[k - ph.load_begin]) lrc_pending_[lrc_key(r)] = LrcPending{now_, j.earliest_done_ns, slot.block};
        }
    }
    const std::uint32_t id = new_job(j);
    ++slot.outstanding;
    inflight_bytes_ += j.inflight_bytes;
    dram_inflight_bytes_ += j.dram_inflight_bytes;
    if (j.pending == 0) {
        push(now_ + j.latency_ns, EventKind::job, id);
        return false;
    }
    if (l2 > 0) add_to_server(kL2Server, l2, id);
    if (hbm > 0) add_to_server(kHbmServer, hbm, id);
    return false;
}

// Change 27's softmax grid: a loop with one 16-byte load per lane in flight takes about 0.45 us +
// 0.15 us per TB/s the GPU moves; B bytes in flight move B / L per ns, so the round trip is the
// root of L^2 - L0 L - c B / 1000 = 0 (c in ns per TB/s, 1 TB/s = 1000 bytes/ns).
double Engine::queued_latency(double base_ns, double inflight, double c) const {
    if (c <= 0 || base_ns <= 0 || inflight <= 0) return base_ns;
    // 1 TB/s = 1000 bytes/ns: L = base + (c / 1000) B / L, i.e. L^2 - base L - (c / 1000) B = 0.
    const double q = c * 1e-3 * inflight;
    return 0.5 * (base_ns + std::sqrt(base_ns * base_ns + 4.0 * q));
}

// A streamed phase stands for G iterations of an s-stage pipeline in which iteration i's loads
// are issued when iteration i - s has computed. With L the time from issuing one iteration's
// loads to their return (latency plus uncontended transfer) and c one iteration's compute (its
// fixed wait plus its work, the block alone on the SM), the loop runs at T = max(c, (L + c) / s)
// per iteration: loads are issued s iterations ahead, so L + c must fit in s periods. The
// engine issues a streamed phase's loads once the previous phase's are back (and computes
// alongside them), so a window of G (L + c) / s per phase gives G such periods when the loop is
// latency-bound, and the compute (G c, or more when other blocks share the SM) binds
// otherwise. The first phase of a block pays its first iteration's L + c before the pipeline is
// full: (L + c) + (G - 1)(L + c) / s. One iteration's latency: HBM's when it missed (a missing
// load step is taken as one iteration missing), else L1's share, else L2's, plus its share of
// the burst drain. Before 2026-11-25 a streamed phase paid one latency per G iterations, which
// made a latency-bound loop up to G / s times too fast (naive attention's P V launch at
// N = 2048, 128 x 128 tiles, G = 2: 905 us coarsened against 1140 us exact).
double Engine::streamed_window(const Phase& ph, std::uint32_t phase, std::uint32_t missing_steps,
                               std::uint32_t l1_steps, double drain_ns, double alone_ns, double inflight,
                               double dram_inflight, double narrow_ns) const {
    const double g = std::max<double>(1, ph.iterations);
    const double steps = std::max<double>(1, ph.load_end - ph.load_begin);
    const double miss = std::min(1.0, static_cast<double>(missing_steps) / g);
    const double l1 = std::min(1.0 - miss, static_cast<double>(l1_steps) / steps);
    const double l_it = miss * (st_.rates.hbm_latency_ns + narrow_ns) + l1 * st_.rates.l1_latency_ns +
                        std::max(0.0, 1 - miss - l1) * st_.rates.l2_latency_ns + (drain_ns + alone_ns) / g +
                        queue_extra(miss, std::max(0.0, 1 - miss - l1), inflight, dram_inflight);  // 0 without the term
    // Under Rates::pipeline_additive (change 64) the window is the loads' alone: the block's
    // compute is added to it by compute_paused.
    const double c_it = additive_ ? 0.0 : (ph.comp_latency_ns + comp_alone_ns(ph)) / g;
    const double s = static_cast<double>(stages_);
    // Wait-then-issue (Launch::loads_after_wait): s-1 iterations' loads in flight, issued as the
    // oldest returns, so T = max(c, L / (s-1)); the compute's share binds through the SM server.
    const double period = wait_then_issue_ ? l_it / (s - 1) : (l_it + c_it) / s;
    return phase == 0 ? (l_it + c_it) + (g - 1) * period : g * period;
}

bool Engine::issue_store(std::uint32_t slot_id, std::uint32_t phase) {
    Slot& slot = slots_[slot_id];
    const Phase& ph = slot.phases[phase];
    if (!ph.has_store) return true;
    L2Access acc;
    const auto& ids = st_.layout.ids[index_];
    const int part = st_.options->l2 ? st_.l2.partition_of_sm(slot.sm) : 0;
    for (std::uint32_t k = ph.store_begin; k < ph.store_end; ++k) {
        const Region& r = slot.stores[k];
        if (!st_.options->l2) {  // write-through: every stored byte goes to HBM
            acc.requested_bytes += r.bytes();
            acc.writeback_bytes += r.bytes();
            continue;
        }
        const std::uint32_t id = ids[r.buffer];
        if (!aligned(id, r)) return true;  // run() notices st_.misaligned and stops
        for_each_byte_range(r, [&](std::int64_t a, std::int64_t b) { st_.l2.store(part, id, a, b, acc); });
    }
    // Fragment stores touch a sector per row segment narrower than a sector: the L2 counts and
    // serves the whole sector (a segment of 16 B costs 32 B there). HBM bytes are unchanged: the
    // halves meet in the L2 before a line is written back.
    if (sector_factor_ > 1) {
        acc.requested_bytes *= sector_factor_;
        acc.far_bytes *= sector_factor_;
    }
    store_bytes_ += acc.requested_bytes;
    far_bytes_ += acc.far_bytes;
    fill_bytes_ += acc.fill_bytes;
    writeback_bytes_ += acc.writeback_bytes;
    const double hbm = static_cast<double>(acc.fill_bytes + acc.writeback_bytes);
    const double l2 = static_cast<double>(acc.requested_bytes);
    slot.hbm_bytes += hbm;
    slot.l2_bytes += l2;
    // Fragment stores (half-sector requests) cost the L2 their sector bytes (l2), or, where the
    // profile gives their measured drain rate (per byte of data, so the sectors are in it), their
    // data bytes x L2 rate / fragment rate of work.
    // With their own drain (change 35), the data bytes go to the fragment server at its rate and
    // the sectors cost the L2 their bytes at its rate.
    const bool own_drain = launch_.fragment_stores() && st_.rates.fragment_store_own_drain;
    const double frag = own_drain ? l2 / static_cast<double>(sector_factor_) : 0.0;
    const double l2_work =
        launch_.fragment_stores() && !own_drain && st_.rates.fragment_store_bytes_per_ns > 0
            ? l2 / static_cast<double>(sector_factor_) *
                  std::max(1.0, st_.rates.l2_bytes_per_ns / st_.rates.fragment_store_bytes_per_ns)
            : l2;
    // A block that stores fragments keeps its slot while its warps issue them (change 60): a wait
    // of its own, the stored data bytes x Rates::fragment_store_hold_ns_per_byte, which the SM's
    // other blocks overlap.
    if (launch_.fragment_stores() && st_.rates.fragment_store_hold_ns_per_byte > 0 && l2 > 0) {
        Job h;
        h.slot = slot_id;
        h.phase = phase;
        h.kind = JobKind::hold;
        const std::uint32_t hid = new_job(h);
        ++slot.outstanding;
        const double until = now_ + l2 / static_cast<double>(sector_factor_) * st_.rates.fragment_store_hold_ns_per_byte;
        push(until, EventKind::job, hid);
        sm_store_wait_ns_[static_cast<std::size_t>(slot.sm)] += until - now_;
        slot.store_wait_ns += until - now_;
    }
    Job j;
    j.slot = slot_id;
    j.phase = phase;
    j.kind = JobKind::store;
    j.pending = static_cast<std::uint8_t>((hbm > 0) + (l2 > 0) + (frag > 0));
    if (j.pending == 0) return true;
    // Posted: a warp does not wait for its stores, so they do not hold the block's slot; they
    // drain through the L2 and HBM servers, sharing them with everyone's loads, while the next
    // block runs, and the launch ends when the last of them has drained.
    const std::uint32_t id = new_job(j);
    if (l2 > 0) add_to_server(kL2Server, l2_work, id);
    if (hbm > 0) add_to_server(kHbmServer, hbm, id);
    if (frag > 0) add_to_server(kFragServer, frag, id);
    return false;
}

// A load joins a request for the same region (buffer, offset, shape) that another block issued
// no longer than one loaded memory round trip (the HBM latency) ago and that nobody has joined
// yet: requests merge in pairs, so of n blocks reading a tile at once about half merge. Two
// identical blocks in the simulator run in exact lock-step; the hardware's drift apart, so the
// join happens with probability p x exp(-loss x iteration) (p = lrc_in_step_ for this launch's
// residency, the loss per main-loop iteration; a coarsened phase of G iterations takes the mean
// over them) and the merged bytes are that fraction of the region. The joining load is back no
// sooner than the request it joined. With Rates::lrc_block_distance D > 0 a join of two blocks
// that are d apart in launch order merges a further exp(-d / D) of the region (change 49).
double Engine::lrc_merged_bytes(std::uint32_t slot_id, std::uint32_t phase, double& ready_ns) {
    const Slot& slot = slots_[slot_id];
    const Phase& ph = slot.phases[phase];
    lrc_joined_.assign(ph.load_end - ph.load_begin, 0);
    const double window = st_.rates.hbm_latency_ns;
    if (lrc_pending_.size() >= lrc_sweep_at_) {  // drop requests that can no longer be joined
        for (auto it = lrc_pending_.begin(); it != lrc_pending_.end();) {
            it = now_ - it->second.issued_ns > window ? lrc_pending_.erase(it) : std::next(it);
        }
        lrc_sweep_at_ = std::max<std::size_t>(4096, 2 * lrc_pending_.size());
    }
    double shared = 0;
    const double distance = st_.rates.lrc_block_distance;
    for (std::uint32_t k = ph.load_begin; k < ph.load_end; ++k) {
        const Region& r = slot.loads[k];
        const auto it = lrc_pending_.find(lrc_key(r));
        if (it == lrc_pending_.end()) continue;
        const LrcPending pending = it->second;
        lrc_pending_.erase(it);
        if (now_ - pending.issued_ns > window) continue;
        const double apart = static_cast<double>(std::llabs(slot.block - pending.block));
        shared += static_cast<double>(r.bytes()) * (distance > 0 ? std::exp(-apart / distance) : 1.0);
        ready_ns = std::max(ready_ns, pending.ready_ns);
        lrc_joined_[k - ph.load_begin] = 1;
    }
    if (shared <= 0) return 0.0;
    const double loss = st_.rates.lrc_lock_loss_per_iteration;
    double in_step = lrc_in_step_ * std::exp(-loss * static_cast<double>(ph.first_iteration));
    if (ph.iterations > 1 && loss > 0) {  // mean of exp(-loss i) over the run's iterations
        const double g = static_cast<double>(ph.iterations);
        in_step *= -std::expm1(-loss * g) / (g * -std::expm1(-loss));
    }
    return shared * in_step;
}

std::int64_t Engine::load_through_l1(L1Cache& l1, int part, std::uint32_t id, std::int64_t a, std::int64_t b,
                                     L2Access& acc) {
    const std::int64_t chunk = st_.layout.chunk_bytes[id];
    std::int64_t hits = 0, miss_begin = -1;
    for (std::int64_t c0 = a - (a % chunk); c0 < b; c0 += chunk) {
        const std::int64_t lo = std::max(a, c0), hi = std::min(b, c0 + chunk);
        const auto c = static_cast<std::uint64_t>(c0 / chunk);
        if (l1.hit(id, c)) {
            hits += hi - lo;
            if (miss_begin >= 0) st_.l2.load(part, id, miss_begin, lo, acc);
            miss_begin = -1;
        } else {
            if (miss_begin < 0) miss_begin = lo;
            l1.insert(id, c, chunk);
        }
    }
    if (miss_begin >= 0) st_.l2.load(part, id, miss_begin, b, acc);
    return hits;
}

void Engine::advance_block(std::uint32_t slot_id) {
    Slot& slot = slots_[slot_id];
    const auto phases = static_cast<std::uint32_t>(slot.phases.size());
    const auto stages = static_cast<std::uint32_t>(stages_);
    bool progress = true;
    while (progress) {
        progress = false;
        // Streamed (coarsened) phases load one after another: processor sharing would otherwise
        // let a block's runs finish together instead of in order, hiding no compute.
        // Wait-then-issue loops (Launch::loads_after_wait, s >= 2): iteration j's loads (j >= s-1)
        // are issued at the top of iteration j-s+1, once its loads are back and iteration j-s
        // has computed; the prologue issues the first s-1.
        while (slot.next_mem < phases &&
               (wait_then_issue_
                    ? (slot.next_mem + 1 < stages ||
                       (slot.mem_done[slot.next_mem + 1 - stages] &&
                        (slot.next_mem < stages || slot.comp_done > slot.next_mem - stages)))
                    : (slot.next_mem < stages || slot.comp_done > slot.next_mem - stages)) &&
               !(slot.phases[slot.next_mem].streamed && slot.next_mem > 0 && !slot.mem_done[slot.next_mem - 1])) {
            const std::uint32_t p = slot.next_mem++;
            if (issue_mem(slot_id, p)) slot.mem_done[p] = 1;
            progress = true;
        }
        if (!slot.comp_running && slot.next_comp < phases &&
            (slot.mem_done[slot.next_comp] || (slot.phases[slot.next_comp].streamed && slot.next_comp < slot.next_mem))) {
            const std::uint32_t p = slot.next_comp++;
            const Phase& ph = slot.phases[p];
            slot.smem_bytes += ph.smem_bytes;
            if (ph.comp_ns <= 0 && !slot.mem_done[p]) {  // streamed, nothing to compute: wait for loads
                slot.comp_running = true;
                slot.comp_waiting = p;
            } else if (ph.comp_ns <= 0) {
                ++slot.comp_done;
                issue_store(slot_id, p);
            } else {
                Job j;
                j.slot = slot_id;
                j.phase = p;
                j.kind = JobKind::comp;
                j.pending = 1;
                j.begin_ns = now_;
                const std::uint32_t id = new_job(j);
                slot.comp_running = true;
                ++slot.outstanding;
                // Its fixed wait (barrier, cp.async wait) comes first and its work joins the
                // SM server after it (see start_comp).
                if (ph.comp_latency_ns > 0) {
                    // Change 95 (sm_share_resident 2): the waiting block gives up its share.
                    if (st_.rates.sm_share_wait_releases && !sm_resident_.empty()) {
                        jobs_[id].released_share = true;
                        --sm_resident_[static_cast<std::size_t>(slot.sm)];
                        apply_sm_cap(slot.sm);
                    }
                    push(now_ + ph.comp_latency_ns, EventKind::comp_start, id);
                } else {
                    start_comp(id);
                }
            }
            progress = true;
        }
    }
    if (slot.comp_done == phases && slot.outstanding == 0) finish_block(slot_id);
}

// A compute job's work joins its SM's server once the phase's fixed wait is over. The wait is
// not overlapped with the block's own work: an iteration of an mma loop waits at its barrier
// and for its cp.async group, then issues its ldmatrix / mma work. Other blocks' work does
// overlap it. So B identical blocks that start together stay in step and an iteration takes
// wait + B x work, while blocks out of step hide each other's waits. Measured on the H100
// (docs/validation change 17): a one-wave GEMM, 64 x 64 tile, 256 iterations, took 537, 667
// and 797 ns per iteration with 1, 2 and 3 blocks per SM, i.e. 407 ns + 130 ns per block (its
// shared-memory time per iteration is 129 ns). Before 2026-11-25 the work was served during
// the wait (done at max(served, start + wait + work alone)), which made a block's iteration
// max(wait + work / cap, B x work) and could not give this line.
void Engine::start_comp(std::uint32_t id) {
    Job& j = jobs_[id];
    const Phase& ph = slots_[j.slot].phases[j.phase];
    const auto sm = static_cast<std::uint32_t>(slots_[j.slot].sm);
    if (j.released_share) {  // change 95: its wait is over, it holds its share again
        j.released_share = false;
        ++sm_resident_[sm];
        apply_sm_cap(static_cast<int>(sm));
    }
    advance_server(kFirstSmServer + sm);
    for (std::size_t u = 0; u < kUnits; ++u) sm_frac_[sm][u] += ph.frac[u];
    double work = ph.comp_ns;
    const auto k = static_cast<std::size_t>(slots_[j.slot].index);
    if (k < smsp_pace_.size()) {  // warp_smsp_pacing: this slot's own warps per sub-partition
        const SlotPace& p = smsp_pace_[k];
        work = (ph.comp_ns - ph.warp_ld_ns) * p.stretched + ph.warp_ld_ns * p.serial_load;
    }
    servers_[kFirstSmServer + sm].add(work, id);
    reschedule(kFirstSmServer + sm);
    slots_[j.slot].comp_started_ns = now_;
}

void Engine::job_complete(std::uint32_t job) {
    const Job j = jobs_[job];
    free_jobs_.push_back(job);
    if (j.kind == JobKind::store) return;  // posted: its block may have retired already
    Slot& slot = slots_[j.slot];
    --slot.outstanding;
    if (j.kind == JobKind::mem) {
        inflight_bytes_ = std::max(0.0, inflight_bytes_ - j.inflight_bytes);
        dram_inflight_bytes_ = std::max(0.0, dram_inflight_bytes_ - j.dram_inflight_bytes);
    }
    switch (j.kind) {
        case JobKind::mem:
            slot.mem_done[j.phase] = 1;
            if (slot.comp_waiting == static_cast<std::int64_t>(j.phase)) {  // streamed compute already done
                slot.comp_waiting = -1;
                slot.comp_running = false;
                ++slot.comp_done;
                issue_store(j.slot, j.phase);
            }
            break;
        case JobKind::comp:
            if (slot.comp_started_ns >= 0) {  // its work is done (change 64's compute clock)
                slot.comp_busy_ns += now_ - slot.comp_started_ns;
                slot.comp_started_ns = -1;
                // Loads that fell due while it computed take up their round trip again.
                for (const std::uint32_t id : slot.loads_on_compute) push(now_, EventKind::job, id);
                slot.loads_on_compute.clear();
            }
            if (!slot.mem_done[j.phase]) {  // streamed phase: wait for its loads
                slot.comp_waiting = j.phase;
                break;
            }
            slot.comp_running = false;
            ++slot.comp_done;
            issue_store(j.slot, j.phase);
            break;
        case JobKind::store: break;  // not reached (returned above)
        case JobKind::hold: break;   // the block's store wait is over (change 60)
    }
    advance_block(j.slot);
}

// A load is back at max(served, issue + uncontended transfer + latency): the latency is the
// round trip of an unloaded memory system, and time spent queueing behind other blocks' bytes is
// spent inside that round trip, not after it (the bound-and-bottleneck form of Little's law:
// with N blocks each keeping b bytes in flight, a step takes max(latency, N b / bandwidth), not
// their sum). An uncontended load is unchanged: served = issue + transfer, then the latency.
// Without this the simulator's identical blocks, which finish their shared-bandwidth transfers
// together, would all wait out the latency while the memory idles, and a bandwidth-bound
// kernel with short loads (softmax) could never reach the bandwidth it is measured at.
bool Engine::part_served(std::uint32_t job) {
    Job& j = jobs_[job];
    if (--j.pending > 0) return false;
    if (j.latency_ns > 0) {
        const double at = std::max(now_, j.earliest_done_ns);
        if (at > now_) {
            push(at, EventKind::job, job);
            return false;
        }
    }
    if (compute_paused(job)) return false;
    if (store_paused(job)) return false;
    job_complete(job);
    return true;
}

// Change 64 (Rates::pipeline_additive): a block's loads make no progress while the block computes.
// The loop overlap probe timed the GEMM kernel and FlashAttention-2 whole, loads only and compute
// only: whole = loads + compute within 0.87-1.08 on the grids with several blocks per SM, where
// the pipelined law takes the larger of the two. So a load that would be back now owes the time
// its block has spent computing since it was issued, and pays it off only with time the block
// spends not computing: due while the block computes, it waits for that compute to end
// (Slot::loads_on_compute); otherwise it is back after what it owes, checked again then. The servers are not
// touched: the bytes move as before and other blocks' loads are not held up. A loop with s stages
// then keeps its s - 1 (wait-then-issue) or s (issue-first) loads in flight and adds its compute
// to their period: L / (s - 1) + c and L / s + c per iteration of a latency-bound lone block.
bool Engine::compute_paused(std::uint32_t job) {
    if (!additive_) return false;
    Job& j = jobs_[job];
    if (j.kind != JobKind::mem) return false;
    Slot& slot = slots_[j.slot];
    const double busy = comp_busy(slot);
    // Due now: the compute since the last check is owed, the time since then that was not compute
    // is paid off (at the first check, when the load would be back, only the compute is owed).
    const double computed = busy - j.comp_mark_ns;
    j.comp_need_ns = j.comp_check_ns < 0 ? computed
                                         : std::max(0.0, j.comp_need_ns - ((now_ - j.comp_check_ns) - computed));
    j.comp_check_ns = now_;
    j.comp_mark_ns = busy;
    if (!(j.comp_need_ns > 1e-9)) return false;
    // While the block computes nothing is paid off: the load waits for that compute to end
    // (job_complete pushes it again), so a long compute costs one more event, not many.
    if (slot.comp_started_ns >= 0) slot.loads_on_compute.push_back(job);
    else push(now_ + j.comp_need_ns, EventKind::job, job);
    return true;
}

// Change 61: while a block of an SM issues its fragment stores (its change-60 wait), the SM's
// other blocks stand still: their K loops, loads and mma alike, are longer by about the store
// time that overlaps them (measured on the QK^T blocks with and without their stores, and the
// same with the scores held by the L2: docs/validation change 61). The hardware's blocks are not
// in step (3-8% of starts together), so a job overlaps the other blocks' waits in proportion to
// the share of the time they take, not as the simulator's identical blocks happen to line up: a
// load or compute job of d ns is back Rates::fragment_store_load_wait x d x W / t later, W the
// store waits the SM's other slots have begun since the launch began and t the time since then.
// Applied once, when the job would otherwise be done. (A block's own wait never overlaps its
// jobs: it waits only after its last compute.)
bool Engine::store_paused(std::uint32_t job) {
    Job& j = jobs_[job];
    if ((j.kind != JobKind::mem && j.kind != JobKind::comp) || j.store_paused ||
        st_.rates.fragment_store_load_wait <= 0 || !(now_ > 0))
        return false;
    j.store_paused = true;
    const Slot& slot = slots_[j.slot];
    const double others = sm_store_wait_ns_[static_cast<std::size_t>(slot.sm)] - slot.store_wait_ns;
    const double extra = st_.rates.fragment_store_load_wait * (now_ - j.begin_ns) * others / now_;
    if (!(extra > 0)) return false;
    push(now_ + extra, EventKind::job, job);
    return true;
}

void Engine::finish_block(std::uint32_t slot_id) {
    Slot& slot = slots_[slot_id];
    // Persistent block: move on to its next work item in the same slot.
    if (launch_.persistent) {
        slot.next_item += blocks_;
        if (slot.next_item < launch_.work_items) {
            push(now_, EventKind::block_start, slot_id);
            return;
        }
    }
    if (st_.options->timeline) {
        BlockSpan span;
        span.block = slot.block;
        span.sm = slot.sm;
        span.slot = slot.index;
        span.start_ns = slot.start_ns;
        span.end_ns = now_;
        span.hbm_bytes = slot.hbm_bytes;
        span.l2_bytes = slot.l2_bytes;
        span.smem_bytes = slot.smem_bytes;
        span.wave = slots_per_wave_ > 0 ? slot.block / slots_per_wave_ : 0;
        out_.timeline.push_back(span);
    }
    slot.busy = false;
    // Change 84: a retired block's slot refilled at once leaves R as it was; an emptied one lowers it.
    if (!sm_resident_.empty()) --sm_resident_[static_cast<std::size_t>(slot.sm)];
    dispatch(slot_id);
    if (!sm_resident_.empty() && !slot.busy) apply_sm_cap(slot.sm);
}

// Completes the jobs of server `s` that are due now.
void Engine::serve(std::uint32_t s) {
    advance_server(s);
    done_.clear();
    servers_[s].pop_finished(done_);
    if (s >= kFirstSmServer) {
        auto& f = sm_frac_[s - kFirstSmServer];
        for (std::uint32_t job : done_) {
            const Job& j = jobs_[job];
            const Phase& ph = slots_[j.slot].phases[j.phase];
            for (std::size_t u = 0; u < kUnits; ++u) f[u] -= ph.frac[u];
        }
        if (servers_[s].jobs() == 0) f = {};
    }
    reschedule(s);
    // Completing a job may add jobs to servers but never pops one, so done_ is not touched
    // while we walk it.
    for (std::uint32_t job : done_) part_served(job);
}

Result<LaunchResult> Engine::run(double start_ns) {
    const Rates& r = st_.rates;
    blocks_ = launch_.blocks();
    stages_ = r.pipeline_serial == 2 || (r.pipeline_serial == 1 && launch_.loads_after_wait) ? 1 : std::max(1, launch_.stages);
    additive_ = stages_ >= 2 && (r.pipeline_additive == 2 || (r.pipeline_additive == 1 && launch_.loads_after_wait));
    const int per_sm = std::max(1, occ_.blocks_per_sm);
    slots_per_wave_ = static_cast<std::int64_t>(sm_count_) * per_sm;
    // Calibration::warp_smsp_pacing (change 52): the GPU puts an SM's warp slot i on sub-partition
    // i mod a (a = the sub-partitions in use), and a block's w warps take consecutive slots, so
    // the block in slot j has warps j w .. j w + w - 1. Its k_s is the most warps on any of its
    // sub-partitions when the B resident slots are full; the power law's k is their average.
    smsp_pace_.clear();
    if (r.warp_smsp_pacing && warp_.on && !warp_.issue_form && !warp_.queue_form) {
        const int w = residency_.warps_per_block;
        const int b = static_cast<int>(residency_.blocks_per_sm);
        const int a = std::min(std::max(1, r.sm_subpartitions), b * w);
        std::vector<int> load(static_cast<std::size_t>(a), 0);
        for (int i = 0; i < b * w; ++i) ++load[static_cast<std::size_t>(i % a)];
        const double e = 1.0 - r.warp_overlap_exponent;
        bool uneven = false;
        for (int j = 0; j < b; ++j) {
            int ks = 0;
            for (int i = j * w; i < (j + 1) * w; ++i) ks = std::max(ks, load[static_cast<std::size_t>(i % a)]);
            const double ratio = static_cast<double>(ks) / warp_.k;
            uneven = uneven || ratio != 1.0;
            smsp_pace_.push_back({std::pow(ratio, e), ratio});
        }
        if (!uneven) smsp_pace_.clear();
    }
    if (launch_.persistent && launch_.work_items < 0) {
        return make_error("launch " + launch_.name + ": work_items must be >= 0");
    }
    servers_.assign(kFirstSmServer + static_cast<std::size_t>(sm_count_), PsServer{});
    server_heap_.reset(servers_.size());
    sm_frac_.assign(static_cast<std::size_t>(sm_count_), std::array<double, kUnits>{});
    sm_store_wait_ns_.assign(static_cast<std::size_t>(sm_count_), 0.0);
    servers_[kHbmServer].configure(r.hbm_bytes_per_ns, std::numeric_limits<double>::infinity());
    servers_[kL2Server].configure(r.l2_bytes_per_ns, r.sm_l2_bytes_per_ns);
    // Change 68 (Rates::hbm_server_slots): at most that many requests share the HBM at once.
    servers_[kHbmServer].set_slots(r.hbm_server_slots);
    servers_[kFragServer].configure(r.fragment_store_bytes_per_ns > 0 ? r.fragment_store_bytes_per_ns : 1.0,
                                    std::numeric_limits<double>::infinity());
    for (int s = 0; s < sm_count_; ++s)
        servers_[kFirstSmServer + static_cast<std::size_t>(s)].configure(1.0, warp_.on ? warp_.job_cap : 1.0);
    sm_base_cap_ = warp_.on ? warp_.job_cap : 1.0;
    // Change 84 (Rates::sm_share_resident): mma launches only; the softmax kernel's one-row blocks
    // (16-32 per SM, no mma) keep sharing among the blocks with work.
    sm_resident_.assign(r.sm_share_resident && launch_.counts.flops_tensor > 0 ? static_cast<std::size_t>(sm_count_) : 0, 0);
    for (auto& s : servers_) s.reset(0);
    sector_factor_ = launch_.store_sector_factor(st_.hw->l2_sector_bytes);
    store_issue_ns_per_byte_ = launch_.fragment_stores() ? r.fragment_store_issue_ns_per_byte : 0.0;
    wait_then_issue_ = r.pipeline_wait_then_issue && launch_.loads_after_wait && stages_ >= 2;
    wait_shared_part_ = r.warp_wait_shared == 1 || (r.warp_wait_shared == 2 && !launch_.loads_after_wait) ? 1.0
                        : r.warp_wait_shared == 2                                                     ? r.warp_wait_shared_part
                                                                                                      : 0.0;
    // A lane's requests return one after another (load_latency_ns_per_byte); in a pipelined loop
    // with pipelined_load_burst_issue (change 53; 2: only loops that issue before they wait,
    // change 54) they leave one cp.async at a time and the warp's load-issue cost paces them.
    const bool issue_paced =
        stages_ >= 2 && (r.pipelined_load_burst_issue == 1 ||
                                (r.pipelined_load_burst_issue == 2 && !launch_.loads_after_wait));
    burst_ns_per_byte_ = issue_paced ? r.warp_load_issue_ns_per_byte : r.load_latency_ns_per_byte;
    count_pages_ = r.hbm_activation_bytes > 0;
    fill_clock_ = r.l2_fill_in_flight && st_.options->l2;
    clock_base_ = start_ns;
    l1_.clear();
    if (launch_.l1_cached_loads && st_.options->l2 && st_.hw->l1_smem_bytes_per_sm > 0) {
        const auto capacity = static_cast<std::int64_t>(
            st_.rates.l1_capacity_fraction * static_cast<double>(st_.hw->l1_smem_bytes_per_sm - occ_.carveout_bytes));
        if (capacity > 0) {
            std::int64_t min_chunk = std::numeric_limits<std::int64_t>::max();
            for (const std::uint32_t id : st_.layout.ids[index_]) min_chunk = std::min(min_chunk, st_.layout.chunk_bytes[id]);
            l1_.resize(static_cast<std::size_t>(sm_count_));
            for (std::size_t m = 0; m < l1_.size(); ++m) {
                // Random replacement: one generator per SM, seeded by its index (never 0).
                const std::uint64_t seed = st_.rates.l1_random_replacement ? 0x9E3779B97F4A7C15ULL * (m + 1) : 0;
                l1_[m].reset(capacity, min_chunk, seed);
            }
        }
    }

    // Slot k of SM m has id m * per_sm + k. The first wave fills slot 0 of every SM, then
    // slot 1, ...: block b < slots goes to SM b % sm_count (round-robin, as the hardware does).
    slots_.assign(static_cast<std::size_t>(slots_per_wave_), Slot{});
    for (int m = 0; m < sm_count_; ++m) {
        for (int k = 0; k < per_sm; ++k) {
            Slot& s = slots_[static_cast<std::size_t>(m * per_sm + k)];
            s.sm = m;
            s.index = k;
        }
    }
    if (st_.options->timeline) out_.timeline.reserve(static_cast<std::size_t>(blocks_));
    for (int k = 0; k < per_sm; ++k) {
        for (int m = 0; m < sm_count_; ++m) dispatch(static_cast<std::uint32_t>(m * per_sm + k));
    }
    if (!sm_resident_.empty())
        for (int m = 0; m < sm_count_; ++m) apply_sm_cap(m);

    while (error_.ok() && !st_.misaligned) {
        const double t_server = server_heap_.top_time();
        const bool have_timer = !events_.empty();
        if (!have_timer && !std::isfinite(t_server)) break;
        if (have_timer && events_.top().t <= t_server) {
            const Event e = events_.top();
            events_.pop();
            now_ = e.t;
            if (e.kind == EventKind::job) {
                if (!compute_paused(e.id) && !store_paused(e.id)) job_complete(e.id);
            } else if (e.kind == EventKind::comp_start) start_comp(e.id);
            else begin_block(e.id);
        } else {
            now_ = t_server;
            serve(server_heap_.top());
        }
    }
    if (!error_.ok()) return error_.error();
    if (st_.misaligned) return make_error("internal: L2 chunk layout needs a full scan");
    if (next_block_ < blocks_) return make_error("launch " + launch_.name + ": internal error, blocks left undispatched");
    for (const Slot& s : slots_) {
        if (s.busy) return make_error("launch " + launch_.name + ": internal error, block " + std::to_string(s.block) + " never finished");
    }

    const double end_ns = now_;
    // The schedulers' issue floor (Calibration::issue_efficiency, docs/validation change 59): the
    // SMs cannot issue the launch's warp-instructions (the kernels whose counts the lowering knows)
    // faster than their sub-partitions' one per clock at that sustained share, spread over every
    // SM. A floor on the whole launch, as a roofline's: the simulated blocks' own timing is kept.
    const double issue_floor_ns = r.ns_per_issued_instruction > 0
                                      ? totals_.warp_instructions * r.ns_per_issued_instruction / static_cast<double>(sm_count_)
                                      : 0.0;
    const bool issue_bound = issue_floor_ns > end_ns;
    const double duration_ns = std::max(end_ns, issue_floor_ns) + r.launch_overhead_ns;
    out_.name = launch_.name;
    out_.start_ns = start_ns;
    for (BlockSpan& s : out_.timeline) {
        s.start_ns += start_ns;
        s.end_ns += start_ns;
    }
    std::sort(out_.timeline.begin(), out_.timeline.end(),
              [](const BlockSpan& a, const BlockSpan& b) { return a.block < b.block; });
    LaunchFacts& f = out_.facts;
    f.grid_x = launch_.grid_x;
    f.grid_y = launch_.grid_y;
    f.grid_z = launch_.grid_z;
    f.threads_per_block = launch_.threads_per_block;
    f.smem_bytes_per_block = launch_.smem_bytes_per_block;
    f.registers_per_thread = launch_.registers_per_thread;
    f.blocks_per_sm = occ_.blocks_per_sm;
    f.waves = slots_per_wave_ > 0 ? (blocks_ + slots_per_wave_ - 1) / slots_per_wave_ : 0;
    f.occupancy_limiter = occ_.limiter;

    Metrics& m = out_.metrics;
    m[Metric::dram_bytes_read] = static_cast<double>(fill_bytes_);
    m[Metric::dram_bytes_write] = static_cast<double>(writeback_bytes_);
    // Requests at the near partition, plus the second lookup at the home partition
    // (core/hardware.hpp l2_partitions): counted by the partitioned L2 when it is on; without it
    // (--l2 off, every load misses) the far share of all loads and stores, as the analytic model.
    m[Metric::lts_t_bytes] = static_cast<double>(load_bytes_ + store_bytes_) +
                             (st_.options->l2 ? static_cast<double>(far_bytes_)
                                              : far_share_ * static_cast<double>(fill_bytes_ + store_bytes_));
    // Reads the L2 request coalescer merged never reach an L2 slice (0 without the model).
    if (lrc_merged_ > 0) m[Metric::lts_t_bytes] -= lrc_merged_;
    m[Metric::gpu_time_duration] = duration_ns;
    m[Metric::smem_bytes_read] = totals_.smem_read;
    m[Metric::smem_bytes_write] = totals_.smem_write;
    m[Metric::flops_tensor] = totals_.flops_tensor;
    m[Metric::flops_fp32] = totals_.flops_fp32;
    m[Metric::flops] = totals_.flops_tensor + totals_.flops_fp32;
    m[Metric::sfu_ops] = totals_.sfu_ops;

    const double sms = static_cast<double>(sm_count_);
    const std::array<double, kResCount> capacity = {r.hbm_bytes_per_ns, r.l2_bytes_per_ns, sms, sms, sms, sms};
    out_.samples = sampler_.samples(end_ns, start_ns, capacity, kBusyThreshold);
    out_.bound = issue_bound ? std::string("issue") : sampler_.dominant_bound(end_ns, capacity, kBusyThreshold);
    if (issue_floor_ns > 0) out_.extra["issue_floor_ns"] = issue_floor_ns;
    const double secs = duration_ns * 1e-9;
    out_.extra["l2_hit_rate"] = load_bytes_ > 0 ? static_cast<double>(hit_bytes_) / static_cast<double>(load_bytes_) : 0.0;
    out_.extra["l2_dirty_bytes_at_end"] = st_.options->l2 ? static_cast<double>(st_.l2.dirty_bytes()) : 0.0;
    out_.extra["hbm_bytes_per_s"] = secs > 0 ? static_cast<double>(fill_bytes_ + writeback_bytes_) / secs : 0.0;
    // lts__t_bytes per second, as `measure` reports it and as the whole prediction's extra says.
    out_.extra["l2_bytes_per_s"] = secs > 0 ? m[Metric::lts_t_bytes] / secs : 0.0;
    out_.extra["l2_hit_bytes"] = static_cast<double>(hit_bytes_);
    out_.extra["l2_load_bytes"] = static_cast<double>(load_bytes_);
    if (lrc_in_step_ > 0 && st_.options->l2) out_.extra["l2_coalesced_bytes"] = lrc_merged_;
    if (!l1_.empty()) out_.extra["l1_hit_bytes"] = static_cast<double>(l1_hit_bytes_);
    out_.extra["sim_iterations_per_phase"] = static_cast<double>(max_group_);
    return std::move(out_);
}

}  // namespace

Result<LaunchResult> simulate_launch(SimState& state, const Launch& launch, std::size_t index,
                                     const Occupancy& occ, double start_ns) {
    Engine engine(state, launch, index, occ);
    return engine.run(start_ns);
}

}  // namespace tilescope::sim
