// Launch: one kernel launch as a grid of block programs, produced by lower().
//
// A block program is a sequence of Steps. Global loads and stores name a 2-D Region of a
// Buffer (row_bytes contiguous bytes, `rows` times, `stride_bytes` apart), so the simulator's
// L2 model can tell which bytes two blocks share. Everything the program moves or computes is
// explicit: a global load that lands in shared memory is a `load` step followed by a
// `smem_write` step. Summing the steps of every block gives exactly the launch's closed-form
// `counts` (that is a test: simulator with L2 off == analytic).
//
// Worked example (flash2, one block, Bc = 64, d = 64, fp16): iteration j has
//   load K[j] (64 rows x 128 B), smem_write 8192 B, load V[j], smem_write 8192 B, barrier,
//   smem_read (Q,K), compute tensor 2*Br*Bc*d, compute sfu Br*Bc (exp), compute fp32 ..., ...
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tilescope {

// reduction: a block-wide reduction (warp shuffles, a shared-memory exchange and its barriers)
// that every warp of the block waits for; `amount` = how many, one after another.
// smem_fill: a tile written into shared memory by `cp.async` (the global load's data arriving),
// as opposed to smem_write, a store the warps issue (st.shared); both are shared-memory writes
// (smem__bytes_write.sum), and calibration.smem_fill_bypass says whether fills take pipe time.
// issue: warp-instructions the block's warps execute in the iteration, where the compiled kernel's
// count is known (the softmax kernel); the simulator charges them only when the profile sets
// Calibration::issue_efficiency (docs/validation change 59).
enum class StepKind : std::uint8_t { load, store, smem_read, smem_write, smem_fill, compute, barrier, reduction, issue };
enum class Unit : std::uint8_t { tensor, fp32, sfu };

struct Region {
    std::uint32_t buffer = 0;      // index into Launch::buffers
    std::int64_t offset_bytes = 0; // first byte
    std::int64_t row_bytes = 0;    // contiguous bytes per row
    std::int64_t rows = 0;
    std::int64_t stride_bytes = 0; // distance between row starts (>= row_bytes when rows > 1)
    std::int64_t bytes() const { return row_bytes * rows; }
};

struct Step {
    StepKind kind = StepKind::compute;
    Unit unit = Unit::fp32;        // compute only
    std::int32_t iteration = 0;    // main-loop iteration this step belongs to (pipelining)
    Region region;                 // load / store only
    double amount = 0;             // smem bytes for smem_*, operations for compute,
                                   // region.bytes() for load/store
};

struct Buffer {
    std::string name;       // "Q", "K", "V", "O", "S", "P", "A", "B", "C", "x", "y", "lse", ...
    std::int64_t bytes = 0;
    bool written = false;   // the launch stores into it
};

// Closed-form totals of a launch with no caches (what analytic() reports).
struct Counts {
    double global_load_bytes = 0;
    double global_store_bytes = 0;
    double smem_read_bytes = 0;
    double smem_write_bytes = 0;
    double flops_tensor = 0;
    double flops_fp32 = 0;
    double sfu_ops = 0;
};

struct Launch {
    std::string name;                 // e.g. "attention-naive:qk", "attention-flash2:fwd"
    std::int64_t grid_x = 1, grid_y = 1, grid_z = 1;
    int threads_per_block = 0;
    std::int64_t smem_bytes_per_block = 0;  // dynamic + static, excluding the system reservation
    int registers_per_thread = 0;           // estimate
    int stages = 1;                   // loads of iteration i+stages-1 may overlap compute of i
    // The order of a pipelined loop's top (stages >= 2). false: the loads of iteration i+s-1 are
    // issued, then the loop waits for iteration i's (kernels/attention/flash2: issue, commit,
    // cp.async.wait_group 1, barrier), so they need only iteration i-1's compute to be done.
    // true: the loop waits for iteration i's loads and the barrier first, then issues
    // iteration i+s-1's (kernels/gemm: cp.async.wait_group s-2, barrier, issue), so those loads
    // also wait for iteration i's to arrive, at most s-1 iterations' loads are in flight, and a
    // latency-bound loop takes L / (s-1) per iteration, not (L + c) / s (docs/validation change 36).
    bool loads_after_wait = false;
    // Instructions one warp executes per mma-loop iteration, where the compiled kernel's count is
    // known (core/kernel_registers.hpp compiled_gemm_instructions); 0 = unknown. The simulator's
    // instruction-chain wait (Calibration::warp_chain_ns_per_instruction) uses it.
    double chain_instructions = 0;
    // Stores written as mma accumulator fragments straight from registers (the GEMM kernel's
    // epilogue): each lane stores two elements, so the four lanes of a fragment row put
    // 8 x dtype bytes in one row of the output (16 B in fp16: half of a 32-byte sector). This is
    // that row segment's size; 0 = whole-sector stores. The L2 counts (lts__t_bytes) and
    // serves a store per sector it touches, so such stores cost sector / segment times their
    // bytes there; they drain at Calibration::fragment_store_bytes_per_s when a profile sets it.
    int fragment_store_row_bytes = 0;
    bool fragment_stores() const { return fragment_store_row_bytes > 0; }
    // Its global stores are staged: the warps write their results to shared memory, read them
    // back as 16-byte lanes and store those (FlashAttention-1's O_i every inner step,
    // FlashAttention-2's O at the end). Calibration::warp_store_issue_ns_per_byte charges the
    // warps for such stores only (docs/validation change 76).
    bool staged_stores = false;
    // L2 bytes (lts__t_bytes, L2 work) per stored byte with `sector_bytes`-byte sectors.
    std::int64_t store_sector_factor(int sector_bytes) const {
        return fragment_stores() && sector_bytes > fragment_store_row_bytes ? sector_bytes / fragment_store_row_bytes : 1;
    }
    // Its global loads are plain ld.global(.nc) loads, cached in the SM's L1 (the softmax
    // kernel); tile loads through cp.async.cg (GEMM, fused attention) bypass L1.
    bool l1_cached_loads = false;
    // Iterations per pass of a program that reads its data again pass after pass (the safe
    // softmax's three passes over a row); 0 = none. Coarsening never merges iterations of two
    // passes into one phase: a merged run would re-read its rows at once, straight after the
    // first read, and hit in L1/L2 where the hardware, a pass later, may have evicted them.
    std::int64_t reread_period = 0;
    bool persistent = false;          // grid = resident slots, each looping over `work_items`
    std::int64_t work_items = 0;      // tiles of work (== blocks() unless persistent)
    std::vector<Buffer> buffers;
    Counts counts;
    // Appends the program of work item `item` (0 <= item < work_items) to `out`.
    // Must be deterministic and thread-safe (called concurrently from sweep workers).
    std::function<void(std::int64_t item, std::vector<Step>& out)> program;
    // Optional, for speed: the work item whose program `item`'s repeats step for step, except
    // that every load and store region of buffer b starts shift[b] bytes later (`shift` comes
    // sized to `buffers`, zeroed). Returns `item` itself when it has no such twin (or when the
    // launch does not know one). The simulator builds one program per twin and moves its regions
    // instead of lowering and grouping every block's steps again; the lowering tests check the
    // law for every item of every kernel family (tests/core/test_lower_invariant.cpp).
    std::function<std::int64_t(std::int64_t item, std::vector<std::int64_t>& shift)> repeat_of;

    std::int64_t blocks() const { return grid_x * grid_y * grid_z; }
};

}  // namespace tilescope
