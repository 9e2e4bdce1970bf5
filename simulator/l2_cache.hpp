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
// cache is fully associative), the split of H100/A100 L2 into two partitions, and MSHR merging in
// time (a chunk is "present" from the moment its miss is issued).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tilescope::sim {

struct L2Access {
    std::int64_t requested_bytes = 0;   // bytes asked for (all reach L2)
    std::int64_t hit_bytes = 0;         // requested bytes that were present
    std::int64_t fill_bytes = 0;        // bytes read from HBM to fill missing chunks
    std::int64_t writeback_bytes = 0;   // dirty bytes written to HBM by evictions
};

class L2Cache {
public:
    // Empties the cache. `min_chunk_bytes` and `buffers` bound the number of chunks it can hold
    // (capacity / min_chunk_bytes + one clipped chunk per buffer); the table grows on demand.
    void reset(std::int64_t capacity_bytes, std::int64_t min_chunk_bytes, std::size_t buffers);

    // Registers buffer `id` with its size and chunk size. Ids are dense, from 0.
    void set_buffer(std::uint32_t id, std::int64_t bytes, std::int64_t chunk_bytes);

    // Touches bytes [begin, end) of buffer `id`. Loads fill missing chunks from HBM; stores mark
    // chunks dirty without reading HBM (write-allocate; a partial chunk is written back whole).
    void load(std::uint32_t id, std::int64_t begin, std::int64_t end, L2Access& acc);
    void store(std::uint32_t id, std::int64_t begin, std::int64_t end, L2Access& acc);

    std::int64_t dirty_bytes() const { return dirty_bytes_; }
    std::int64_t used_bytes() const { return used_bytes_; }

private:
    struct Node {
        std::uint64_t key = 0;
        std::uint32_t prev = kNil, next = kNil;  // LRU list: head = most recent
        std::uint32_t bytes = 0;
        bool dirty = false;
    };
    // Hash table slot. The key is stored inline so probing and backward-shift deletion never
    // touch the (randomly placed) nodes: with the key only in the node, table_erase()'s probe
    // walk was 30% of a naive-attention run.
    struct TableSlot {
        std::uint64_t key = kEmptyKey;
        std::uint32_t node = 0;
    };
    struct BufferInfo {
        std::int64_t bytes = 0;
        std::int64_t chunk_bytes = 0;
        int chunk_shift = 0;
    };
    static constexpr std::uint32_t kNil = 0xffffffffu;
    static constexpr std::uint64_t kEmptyKey = ~std::uint64_t{0};  // keys are (id << 44) | chunk

    void touch(std::uint32_t id, std::int64_t begin, std::int64_t end, bool is_store, L2Access& acc);
    std::uint32_t find(std::uint64_t key) const;
    void table_insert(std::uint64_t key, std::uint32_t node);
    void table_erase(std::uint64_t key);
    void rehash(std::uint64_t slots);
    void list_unlink(std::uint32_t n);
    void list_push_front(std::uint32_t n);
    void evict_one(L2Access& acc);
    // Groups of kGroup consecutive chunks of a buffer hash to kGroup consecutive slots: accesses
    // stream through neighbouring chunks, so their probes share CPU cache lines. A plain
    // Fibonacci hash scattered them over a table of up to 32 MB (64-B chunks in a 40 MB L2) and
    // made every probe a DRAM miss (80% of the lookup time).
    static constexpr int kGroupBits = 3;
    std::uint64_t slot_of(std::uint64_t key) const {
        const std::uint64_t group = ((key >> kGroupBits) * 0x9E3779B97F4A7C15ull) >> table_shift_;
        return ((group << kGroupBits) | (key & ((1u << kGroupBits) - 1))) & table_mask_;
    }

    std::int64_t capacity_bytes_ = 0;
    std::int64_t used_bytes_ = 0;
    std::int64_t dirty_bytes_ = 0;
    std::vector<BufferInfo> buffers_;
    std::vector<Node> nodes_;
    std::vector<std::uint32_t> free_;
    std::vector<TableSlot> table_;  // linear probing, kept at most half full
    int table_shift_ = 64;
    std::uint64_t table_mask_ = 0;
    std::uint32_t head_ = kNil, tail_ = kNil;
    std::int64_t live_ = 0;  // chunks in the cache
};

}  // namespace tilescope::sim
