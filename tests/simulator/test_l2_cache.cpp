// L2Cache against a plain reference model (std::list LRU + std::map index) on random accesses:
// the paged chunk index, its page recycling and its directory growth must give exactly the hits,
// fills, write-backs and dirty bytes of a textbook chunk-level write-back LRU.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <list>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "simulator/l2_cache.hpp"

using tilescope::sim::L2Access;
using tilescope::sim::L2Cache;

namespace {

struct RefBuffer {
    std::int64_t bytes = 0, chunk_bytes = 0;
};

// Chunk-level, fully associative, write-back, write-allocate LRU, written for clarity.
class RefCache {
public:
    RefCache(std::int64_t capacity, std::vector<RefBuffer> buffers) : capacity_(capacity), buffers_(std::move(buffers)) {}

    void touch(std::uint32_t id, std::int64_t begin, std::int64_t end, bool is_store, L2Access& acc) {
        if (end <= begin) return;
        const RefBuffer& b = buffers_[id];
        acc.requested_bytes += end - begin;
        for (std::int64_t c = begin / b.chunk_bytes; c <= (end - 1) / b.chunk_bytes; ++c) {
            const std::int64_t c_begin = c * b.chunk_bytes;
            const std::int64_t overlap = std::min(end, c_begin + b.chunk_bytes) - std::max(begin, c_begin);
            const Key key{id, c};
            auto it = index_.find(key);
            if (it != index_.end()) {
                if (!is_store) acc.hit_bytes += overlap;
                if (is_store && !it->second->dirty) {
                    it->second->dirty = true;
                    dirty_ += it->second->bytes;
                }
                lru_.splice(lru_.begin(), lru_, it->second);
                continue;
            }
            std::int64_t chunk = b.chunk_bytes;
            if (b.bytes > c_begin) chunk = std::min(chunk, b.bytes - c_begin);
            if (chunk > capacity_) {
                if (is_store) acc.writeback_bytes += overlap;
                else acc.fill_bytes += chunk;
                continue;
            }
            while (used_ + chunk > capacity_ && !lru_.empty()) {
                const Entry& v = lru_.back();
                if (v.dirty) {
                    acc.writeback_bytes += v.bytes;
                    dirty_ -= v.bytes;
                }
                used_ -= v.bytes;
                index_.erase(v.key);
                lru_.pop_back();
            }
            lru_.push_front(Entry{key, chunk, is_store});
            index_[key] = lru_.begin();
            used_ += chunk;
            if (is_store) dirty_ += chunk;
            else acc.fill_bytes += chunk;
        }
    }
    std::int64_t dirty_bytes() const { return dirty_; }
    std::int64_t used_bytes() const { return used_; }

private:
    using Key = std::pair<std::uint32_t, std::int64_t>;
    struct Entry {
        Key key;
        std::int64_t bytes = 0;
        bool dirty = false;
    };
    std::int64_t capacity_ = 0, used_ = 0, dirty_ = 0;
    std::vector<RefBuffer> buffers_;
    std::list<Entry> lru_;
    std::map<Key, std::list<Entry>::iterator> index_;
};

}  // namespace

TEST_CASE("L2Cache equals a reference LRU on random accesses", "[sim][l2][cache]") {
    std::mt19937_64 rng(20261122);
    for (int round = 0; round < 40; ++round) {
        // Small capacities so that evictions, page recycling and un-cacheable chunks all happen.
        const std::int64_t capacity = std::int64_t{1} << std::uniform_int_distribution<int>(9, 16)(rng);
        const int nbuf = std::uniform_int_distribution<int>(1, 4)(rng);
        std::vector<RefBuffer> buffers;
        L2Cache cache;
        cache.reset(capacity, 32, static_cast<std::size_t>(nbuf));
        for (int i = 0; i < nbuf; ++i) {
            RefBuffer b;
            b.chunk_bytes = std::int64_t{1} << std::uniform_int_distribution<int>(5, 12)(rng);
            b.bytes = std::uniform_int_distribution<std::int64_t>(1, 1 << 18)(rng);
            buffers.push_back(b);
            cache.set_buffer(static_cast<std::uint32_t>(i), b.bytes, b.chunk_bytes);
        }
        RefCache ref(capacity, buffers);
        for (int op = 0; op < 3000; ++op) {
            const auto id = static_cast<std::uint32_t>(std::uniform_int_distribution<int>(0, nbuf - 1)(rng));
            const RefBuffer& b = buffers[id];
            // Mostly inside the buffer, sometimes past its end (exercises the directory growth).
            const std::int64_t limit = op % 97 == 0 ? 4 * b.bytes + 8192 : b.bytes;
            std::int64_t begin = std::uniform_int_distribution<std::int64_t>(0, limit)(rng);
            std::int64_t end = begin + std::uniform_int_distribution<std::int64_t>(0, 4 * b.chunk_bytes)(rng);
            if (op % 97 != 0) end = std::min(end, b.bytes);
            const bool store = std::uniform_int_distribution<int>(0, 3)(rng) == 0;
            L2Access got, want;
            if (store) cache.store(id, begin, end, got);
            else cache.load(id, begin, end, got);
            ref.touch(id, begin, end, store, want);
            INFO("round " << round << " op " << op);
            REQUIRE(got.requested_bytes == want.requested_bytes);
            REQUIRE(got.hit_bytes == want.hit_bytes);
            REQUIRE(got.fill_bytes == want.fill_bytes);
            REQUIRE(got.writeback_bytes == want.writeback_bytes);
            REQUIRE(cache.dirty_bytes() == ref.dirty_bytes());
            REQUIRE(cache.used_bytes() == ref.used_bytes());
        }
    }
}
