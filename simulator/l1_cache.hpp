// L1Cache: one SM's L1 data cache for loads that go through it (Launch::l1_cached_loads: plain
// `ld.global` / `ld.global.nc`, as the softmax kernel issues; `cp.async.cg` tile loads bypass
// L1). A fully associative, read-only cache of chunks (the L2's per-buffer chunks,
// simulator/buffer_layout.hpp), emptied at every launch: L1 is not kept coherent across kernels.
// Its victim is the least recently used chunk, or, with random replacement
// (Calibration::l1_random_replacement, docs/validation change 25), a chunk drawn at random from
// a generator seeded per SM, so a run is reproducible. NVIDIA does not document the policy; the
// H100's measured L1 keeps less than an LRU would (naive attention's softmax launch: 12% of the
// re-read rows miss when 16 rows of 4 KiB share a 224 KiB L1, which an LRU never misses).
//
// Capacity is what the launch's shared-memory carve-out leaves of the SM's unified L1 + shared
// memory (Hardware::l1_smem_bytes_per_sm - Occupancy::carveout_bytes). A hit never reaches the
// L2: it is not counted in lts__t_bytes and waits only the L1 latency.
//
// Why not L2Cache: its chunk directory is sized by the buffers (a direct-mapped page table, fast
// for a 50 MB L2 over 8 GB of buffers, but one per SM would cost hundreds of MB). An L1 holds a
// few thousand chunks at most, so an open-addressing table of twice that many slots, probed
// linearly and emptied by backward shifting, stays small and cache-resident.
#pragma once

#include <cstdint>
#include <vector>

#include "simulator/lru_list.hpp"

namespace tilescope::sim {

class L1Cache {
public:
    // Empties the cache and sizes it for `capacity_bytes` of chunks no smaller than
    // `min_chunk_bytes`. A capacity of 0 makes every lookup miss and insert nothing.
    // `random_seed` != 0 selects random replacement, drawing victims from that seed.
    void reset(std::int64_t capacity_bytes, std::int64_t min_chunk_bytes, std::uint64_t random_seed = 0);
    // True (and the chunk made most recent) when chunk `c` of buffer `id` is present.
    bool hit(std::uint32_t id, std::uint64_t c);
    // Inserts chunk `c` of buffer `id` (absent) of `bytes`, evicting victims until it fits. A chunk larger than the capacity is not inserted.
    void insert(std::uint32_t id, std::uint64_t c, std::int64_t bytes);
    std::int64_t used_bytes() const { return used_bytes_; }
    std::int64_t capacity_bytes() const { return capacity_bytes_; }
    std::size_t chunks() const { return live_; }

private:
    static constexpr std::uint32_t kNil = LruList::kNil;
    static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
    struct Node {
        std::uint64_t key = 0;
        std::uint32_t prev = kNil, next = kNil;  // LRU list: head = most recent
        std::int64_t bytes = 0;
        std::uint32_t live_index = 0;  // place in live_nodes_ (random replacement)
    };
    static std::uint64_t key_of(std::uint32_t id, std::uint64_t c) { return (std::uint64_t{id} << 44) | c; }
    std::size_t slot_of(std::uint64_t key) const;  // hashed home slot
    std::size_t find_slot(std::uint64_t key) const;  // slot holding `key`, or the empty slot ending its probe
    void erase_slot(std::size_t s);
    void evict(std::uint32_t n);
    std::uint32_t victim();

    std::int64_t capacity_bytes_ = 0, used_bytes_ = 0;
    std::size_t live_ = 0;
    std::vector<std::uint64_t> keys_;   // open-addressing table: key per slot (kEmpty = free)
    std::vector<std::uint32_t> node_;   // node index per slot
    std::vector<Node> nodes_;
    std::vector<std::uint32_t> free_;
    LruList lru_;
    std::uint64_t rng_ = 0;                  // 0 = LRU; else the xorshift64 state of random replacement
    std::vector<std::uint32_t> live_nodes_;  // random replacement: the live nodes, any order
};

}  // namespace tilescope::sim
