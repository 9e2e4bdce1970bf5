// L2Cache: a fully associative, write-back, write-allocate LRU cache of fixed-size chunks.
//
// Granularity. Each buffer is cut into aligned chunks of `chunk_bytes` (a power of two chosen per
// buffer by choose_granularity(): the largest one that divides every row start and row length the
// launches use, never below the L2 sector and never above 64 KiB). Because every access covers
// whole chunks, chunk-level LRU gives the same hits as line-level LRU would for these access
// patterns (modulo associativity), while a flash-attention K tile of 64 rows x 128 B is one
// lookup instead of 64. The floor at the sector size reproduces sector over-fetch for accesses
// narrower than a sector.
//
// What it leaves out on purpose: set associativity and hashing of addresses to L2 slices (the
// cache is fully associative). A chunk is "present" from the moment its miss is issued; with a
// clock (set_clock, docs/validation change 43) a load that hits a chunk whose fill is still on its
// way from HBM is told so (L2Access::pending_*): its data comes with that fill, as the hardware's
// miss-status holding registers make a hit-on-miss wait. Without a clock nothing is ever pending.
// The split of A100/H100/H200 L2 into partitions is L2System's job (below): it keeps one L2Cache
// per partition.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "simulator/lru_list.hpp"

namespace tilescope::sim {

struct L2Access {
    std::int64_t requested_bytes = 0;   // bytes asked for (all reach L2)
    std::int64_t hit_bytes = 0;         // requested bytes that were present (near or far partition)
    std::int64_t far_bytes = 0;         // requested bytes looked up a second time, at a far home partition
    std::int64_t fill_bytes = 0;        // bytes read from HBM to fill missing chunks
    std::int64_t writeback_bytes = 0;   // dirty bytes written to HBM by evictions
    // With a clock (set_clock): requested bytes that hit a chunk whose fill was still in flight,
    // and the latest time such a fill lands.
    std::int64_t pending_bytes = 0;
    double pending_until_ns = 0;
};

class L2Cache {
public:
    // Empties the cache. `min_chunk_bytes` and `buffers` bound the number of chunks it can hold
    // (capacity / min_chunk_bytes + one clipped chunk per buffer); the table grows on demand.
    // `dirty_limit` in [0, 1]: above 0, dirty chunks may hold at most that share of the capacity;
    // a store that goes beyond writes back (and evicts) the least recent dirty chunks
    // (limit_dirty). Victims are the least recent chunks either way. 0: no limit (the default).
    // `ways` > 0 (change 49): the victim is the least recent of `ways` chunks drawn at random
    // (from a generator seeded by `seed`, so a run is reproducible) instead of the least recent
    // of all: the statistics of a `ways`-way set-associative LRU whose sets an address hash picks,
    // where a newcomer evicts the oldest line of its own set (a random sample of the cache's
    // lines), not the oldest of the whole cache. Its edge is soft: data a little larger than the
    // cache is partly kept, data a little smaller partly lost. 0 = exact LRU (the default).
    void reset(std::int64_t capacity_bytes, std::int64_t min_chunk_bytes, std::size_t buffers,
               double dirty_limit = 0.0, int ways = 0, std::uint64_t seed = 0);

    // Registers buffer `id` with its size and chunk size. Ids are dense, from 0.
    void set_buffer(std::uint32_t id, std::int64_t bytes, std::int64_t chunk_bytes);

    // Touches bytes [begin, end) of buffer `id`. Loads fill missing chunks from HBM; stores mark
    // chunks dirty without reading HBM (write-allocate; a partial chunk is written back whole).
    void load(std::uint32_t id, std::int64_t begin, std::int64_t end, L2Access& acc);
    void store(std::uint32_t id, std::int64_t begin, std::int64_t end, L2Access& acc);

    // With sampled victims (`ways` > 0 in reset): true = a draw's victim is its least recent clean
    // chunk, its least recent chunk only when every chunk drawn is dirty (a write-back costs the
    // evicting access; docs/validation change 74). reset() sets it back to false.
    void set_clean_victims(bool on) { clean_victims_ = on; }
    // `weight` >= 1 (change 91): a dirty chunk takes `weight` times its bytes of the capacity while
    // it stays dirty (a stored chunk's room on its way to HBM; the dirty limit still counts its
    // bytes once). A store that makes a clean chunk dirty, or a dirty newcomer, evicts to make
    // that room. reset() sets it back to 1 (every chunk takes its bytes).
    void set_dirty_weight(double weight) { dirty_weight_ = weight; }
    // With sampled victims: `w` in (0, 1] (change 78's rule, change 91): a draw's victim is the
    // chunk with the largest age, a dirty chunk's age (accesses since its last use) counted at w
    // times its own, so a dirty chunk outlives clean ones up to 1/w times more recent. 1 = the
    // least recent chunk drawn (the default; reset() sets it back). Not with clean victims.
    void set_dirty_age_weight(double w) { dirty_age_weight_ = w; }

    std::int64_t dirty_bytes() const { return dirty_bytes_; }
    std::int64_t used_bytes() const { return used_bytes_; }  // room taken (dirty_weight_: more than bytes)
    std::int64_t capacity_bytes() const { return capacity_bytes_; }

    // Chunk-level primitives (L2System's partitioned lookups use them).
    static constexpr std::uint32_t kNil = LruList::kNil;
    int chunk_shift(std::uint32_t id) const { return buffers_[id].chunk_shift; }
    // Size of chunk `c` of buffer `id`, clipped at the buffer's end.
    std::int64_t chunk_size(std::uint32_t id, std::uint64_t c) const;
    // Node of chunk `c` of buffer `id`, or kNil.
    std::uint32_t find(std::uint32_t id, std::uint64_t c) {
        const std::uint32_t d = dir_entry(id, c);
        return d == kNil ? kNil : pool_[(static_cast<std::size_t>(d) << kPageBits) + (c & (kPageChunks - 1))];
    }
    // Makes node `n` the most recent one; with `dirty`, marks it dirty.
    void promote(std::uint32_t n, bool dirty);
    // When node `n`'s fill lands (0: it is not a pending fill); set_ready stamps it.
    double ready_ns(std::uint32_t n) const { return nodes_[n].ready_ns; }
    void set_ready(std::uint32_t n, double t) { nodes_[n].ready_ns = t; }
    // The clock of loads (change 43): `now_ns` is the time of the accesses that follow, and
    // `fill_ready_ns` the time a fill they issue lands. A load hit on a chunk with a later ready
    // time counts as pending. Both 0 (the default, and after reset): no clock.
    void set_clock(double now_ns, double fill_ready_ns) {
        now_ns_ = now_ns;
        fill_ready_ns_ = fill_ready_ns;
    }
    double now_ns() const { return now_ns_; }
    double fill_ready_ns() const { return fill_ready_ns_; }
    // Adds a load hit of `overlap` bytes on node `n` to acc's pending bytes if its fill is in flight.
    void note_pending(std::uint32_t n, std::int64_t overlap, L2Access& acc) const {
        const double t = nodes_[n].ready_ns;
        if (t > now_ns_) {
            acc.pending_bytes += overlap;
            if (t > acc.pending_until_ns) acc.pending_until_ns = t;
        }
    }
    // Inserts chunk `c` (absent) of `chunk` bytes as the most recent one, evicting LRU chunks
    // (dirty ones are written back into acc). False, and nothing inserted, when it cannot fit.
    bool insert(std::uint32_t id, std::uint64_t c, std::int64_t chunk, bool dirty, L2Access& acc);
    // Drops node `n` (a clean copy) without writing it back.
    void drop(std::uint32_t n);
    // With a dirty limit (reset), writes back and evicts the least recent dirty chunks while the
    // dirty bytes exceed it; stores call it once their chunk is dirty. With a dirty weight above 1
    // it then evicts victims while the chunks' room exceeds the capacity (a store that made a
    // clean chunk dirty grew its room).
    void limit_dirty(L2Access& acc);

private:
    struct Node {
        std::uint64_t key = 0;
        std::uint32_t prev = kNil, next = kNil;  // LRU list (lru_): head = most recent
        std::uint32_t bytes = 0;
        bool dirty = false;
        double ready_ns = 0;      // when a load's fill of this chunk lands (set_clock; 0 = not pending)
    };
    struct BufferInfo {
        std::int64_t bytes = 0;
        std::int64_t chunk_bytes = 0;
        int chunk_shift = 0;
        std::size_t dir_begin = 0, dir_pages = 0;  // this buffer's range in dir_
    };
    static constexpr int kKeyShift = 44;  // keys are (id << 44) | chunk
    static constexpr std::uint64_t kChunkMask = (std::uint64_t{1} << kKeyShift) - 1;
    // Chunk -> node map: a direct-mapped, paged index instead of a hash table. Each buffer owns
    // a run of directory entries, one per page of kPageChunks consecutive chunks; a page (an
    // array of node indices) is taken from the pool when its first chunk arrives and given back
    // when its last one leaves, so memory follows the live chunks, not the buffer sizes. A
    // lookup is two array reads with no probing, and a stream through neighbouring chunks stays
    // in one page. The hash table it replaced (linear probing, backward-shift deletion) spent
    // 60% of a naive-attention run in probe walks. Only the map changed: the LRU list, and so
    // every result, is the same.
    static constexpr int kPageBits = 6;
    static constexpr std::uint64_t kPageChunks = std::uint64_t{1} << kPageBits;

    void touch(std::uint32_t id, std::int64_t begin, std::int64_t end, bool is_store, L2Access& acc);
    // Directory entry of chunk `c` of buffer `b` (grows the buffer's directory if an access
    // lies past its registered size, which the engine's range checks normally prevent).
    std::uint32_t& dir_entry(std::uint32_t id, std::uint64_t c) {
        const BufferInfo& b = buffers_[id];
        const auto page = static_cast<std::size_t>(c >> kPageBits);
        if (page >= b.dir_pages) [[unlikely]] return grow_dir(id, page);
        return dir_[b.dir_begin + page];
    }
    std::uint32_t& grow_dir(std::uint32_t id, std::size_t page);
    void map_insert(std::uint32_t id, std::uint64_t c, std::uint32_t node);
    void map_erase(std::uint64_t key);
    void evict_one(L2Access& acc);
    std::int64_t capacity_bytes_ = 0;
    std::int64_t used_bytes_ = 0;  // the room the chunks take (dirty ones at dirty_weight_ x bytes)
    double dirty_weight_ = 1.0;
    std::int64_t room(std::int64_t bytes, bool dirty) const {
        return (dirty && dirty_weight_ != 1.0) ? static_cast<std::int64_t>(static_cast<double>(bytes) * dirty_weight_ + 0.5)
                                               : bytes;
    }
    std::int64_t dirty_bytes_ = 0;
    std::vector<BufferInfo> buffers_;
    std::vector<Node> nodes_;
    // Last use of each node (split_ or ways_ only; 0 = a free node), apart from the nodes so that
    // sampled victims (ways_) read a compact array: 8 bytes a chunk, not a whole node.
    std::vector<std::uint64_t> stamps_;
    // ways_ only: the live nodes densely, their last uses in the same order (a sample draws from
    // these, never from free nodes, which may outnumber them after large chunks replaced small
    // ones; one read per draw), and each node's place in them. Clean nodes are then in no list:
    // nothing needs their order, and relinking them on every hit cost more than the samples.
    std::vector<std::uint32_t> live_ids_;
    std::vector<std::uint64_t> live_stamps_;
    std::vector<std::uint32_t> live_pos_;
    bool listed(const Node& n) const { return ways_ == 0 || (split_ && n.dirty); }
    void stamp(std::uint32_t n) {
        ++tick_;
        if (ways_ > 0) live_stamps_[live_pos_[n]] = tick_;
        else stamps_[n] = tick_;
    }
    void unlist_live(std::uint32_t n);  // ways_ only: takes `n` out of live_ids_
    std::vector<std::uint32_t> free_;
    std::vector<std::uint32_t> dir_;         // page index per (buffer, page of chunks); kNil = none
    std::vector<std::uint32_t> pool_;        // pages: kPageChunks node indices each (kNil = absent)
    std::vector<std::uint32_t> page_live_;   // live chunks per page
    std::vector<std::uint32_t> free_pages_;
    LruList lru_;        // every chunk; with split_, the clean ones only
    LruList dirty_lru_;  // split_ (a dirty limit is set): the dirty chunks, least recent last
    bool split_ = false;
    std::int64_t dirty_limit_bytes_ = 0;
    std::uint64_t tick_ = 0;
    double now_ns_ = 0, fill_ready_ns_ = 0;  // set_clock
    LruList& list_of(const Node& n) { return (split_ && n.dirty) ? dirty_lru_ : lru_; }
    void evict(std::uint32_t victim, L2Access& acc);
    // ways_ > 0: evicts victims, each the least recent of ways_ random live chunks, to make room
    // for a chunk of `chunk` bytes (a few at a time, l2_cache.cpp).
    void evict_sampled(std::int64_t chunk, L2Access& acc);
    // evict_sampled's choice: victims[j] = the victim of draw j (pos[j * ways_ .. + ways_)).
    template <int Rule>  // 0: least recent; 1: clean first (clean_victims_); 2: dirty_age_weight_
    void pick_victims(const std::size_t* pos, int batch, std::uint32_t* victims);
    std::uint64_t next_random();
    void prefetch_map_slot(std::uint64_t key) const;  // pure speed: the chunk map's slot of `key`
    std::int64_t live_ = 0;  // chunks in the cache
    int ways_ = 0;
    bool clean_victims_ = false;
    double dirty_age_weight_ = 1.0;
    std::uint64_t rng_ = 0;
};

// L2System: the GPU's L2 as `partitions` LRU caches of capacity/partitions each.
//
// A100, H100 and H200 split their L2 into two partitions, each wired to half of the SMs; every
// line has a home partition (addresses are interleaved over them). With one partition this is
// exactly L2Cache. With P > 1, per chunk, from an SM attached to partition p (SM m -> p = m % P;
// the simulator's round-robin dispatch puts consecutive blocks on alternate partitions, as the
// hardware spreads them over GPCs), and a home partition h chosen by a hash of the chunk:
//   load:  hit in p -> done. Miss in p with h == p -> fill from HBM into p. Miss with h != p ->
//          a second lookup at h (counted in far_bytes): a hit there, or else a fill from HBM
//          into h, and then a clean copy of the chunk in p too.
//   store: written dirty at its home h (far_bytes when h != p); a copy in p is dropped.
// So data that SMs of both partitions read is held twice and the capacity that such shared data
// sees is about half of the L2's, which is what makes a 32 MB GEMM operand thrash a 50 MB L2 on
// an H100 (docs/validation/README.md). Only homes write back; copies are clean.
class L2System {
public:
    // `dirty_limit`: each partition's limit on dirty data (L2Cache::reset).
    // `ways`: each partition's sampled victims (L2Cache::reset), seeded per partition.
    // `store_copy`: a store from an SM of a partition other than the chunk's home also leaves a
    // clean copy in the SM's partition, as a far load does (change 49); false: the copy is dropped.
    void reset(std::int64_t capacity_bytes, int partitions, std::int64_t min_chunk_bytes, std::size_t buffers,
               double dirty_limit = 0.0, int ways = 0, bool store_copy = false);
    void set_buffer(std::uint32_t id, std::int64_t bytes, std::int64_t chunk_bytes);
    // L2Cache::set_clean_victims for every partition (after reset).
    void set_clean_victims(bool on) {
        for (auto& c : parts_) c.set_clean_victims(on);
    }
    // L2Cache::set_dirty_weight and set_dirty_age_weight for every partition (after reset).
    void set_dirty_weight(double weight) {
        for (auto& c : parts_) c.set_dirty_weight(weight);
    }
    void set_dirty_age_weight(double w) {
        for (auto& c : parts_) c.set_dirty_age_weight(w);
    }
    int partitions() const { return static_cast<int>(parts_.size()); }
    // L2Cache::set_clock for every partition. A far hit's copy in the near partition lands with
    // the home's fill when that is still in flight.
    void set_clock(double now_ns, double fill_ready_ns) {
        for (auto& c : parts_) c.set_clock(now_ns, fill_ready_ns);
    }
    // Partition of SM `sm`.
    int partition_of_sm(int sm) const { return sm % partitions(); }
    // Home partition of chunk `c` of buffer `id`.
    int home(std::uint32_t id, std::uint64_t c) const;

    void load(int partition, std::uint32_t id, std::int64_t begin, std::int64_t end, L2Access& acc);
    void store(int partition, std::uint32_t id, std::int64_t begin, std::int64_t end, L2Access& acc);

    std::int64_t dirty_bytes() const;
    std::int64_t used_bytes() const;

private:
    void touch(int p, std::uint32_t id, std::int64_t begin, std::int64_t end, bool is_store, L2Access& acc);
    std::vector<L2Cache> parts_;
    bool store_copy_ = false;
};

}  // namespace tilescope::sim
