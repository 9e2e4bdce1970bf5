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

// `n` buffers of random size (1 .. 2^max_bytes_log2 B) and chunk size (32 .. 2^max_chunk_log2 B),
// registered with `cache` (an L2Cache or L2System) under ids 0 .. n-1.
template <class Cache>
std::vector<RefBuffer> random_buffers(std::mt19937_64& rng, int n, int max_chunk_log2, int max_bytes_log2, Cache& cache) {
    std::vector<RefBuffer> buffers;
    for (int i = 0; i < n; ++i) {
        RefBuffer b;
        b.chunk_bytes = std::int64_t{1} << std::uniform_int_distribution<int>(5, max_chunk_log2)(rng);
        b.bytes = std::uniform_int_distribution<std::int64_t>(1, std::int64_t{1} << max_bytes_log2)(rng);
        buffers.push_back(b);
        cache.set_buffer(static_cast<std::uint32_t>(i), b.bytes, b.chunk_bytes);
    }
    return buffers;
}

// The counts of one access and the cache totals agree with the reference's.
template <class Cache, class Ref>
void require_same(const L2Access& got, const L2Access& want, const Cache& cache, const Ref& ref) {
    REQUIRE(got.requested_bytes == want.requested_bytes);
    REQUIRE(got.hit_bytes == want.hit_bytes);
    REQUIRE(got.far_bytes == want.far_bytes);
    REQUIRE(got.fill_bytes == want.fill_bytes);
    REQUIRE(got.writeback_bytes == want.writeback_bytes);
    REQUIRE(cache.dirty_bytes() == ref.dirty_bytes());
    REQUIRE(cache.used_bytes() == ref.used_bytes());
}

// Chunk-level, fully associative, write-back, write-allocate LRU, written for clarity. With a
// dirty limit (a share of the capacity), a store that leaves more dirty bytes than that writes
// back and evicts the least recent dirty chunks.
class RefCache {
public:
    RefCache(std::int64_t capacity, std::vector<RefBuffer> buffers, double dirty_limit = 0)
        : capacity_(capacity),
          limit_(dirty_limit > 0 ? static_cast<std::int64_t>(dirty_limit * static_cast<double>(capacity)) : -1),
          buffers_(std::move(buffers)) {}

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
                if (is_store) limit_dirty(acc);
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
            if (is_store) {
                dirty_ += chunk;
                limit_dirty(acc);
            } else {
                acc.fill_bytes += chunk;
            }
        }
    }
    void limit_dirty(L2Access& acc) {
        while (limit_ >= 0 && dirty_ > limit_) {
            auto v = lru_.end();
            for (auto it = lru_.begin(); it != lru_.end(); ++it)
                if (it->dirty) v = it;  // the last dirty entry: the least recent one
            acc.writeback_bytes += v->bytes;
            dirty_ -= v->bytes;
            used_ -= v->bytes;
            index_.erase(v->key);
            lru_.erase(v);
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
    std::int64_t capacity_ = 0, limit_ = -1, used_ = 0, dirty_ = 0;
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
        L2Cache cache;
        cache.reset(capacity, 32, static_cast<std::size_t>(nbuf));
        const std::vector<RefBuffer> buffers = random_buffers(rng, nbuf, 12, 18, cache);
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
            require_same(got, want, cache, ref);
        }
    }
}

// Calibration::l2_dirty_limit (docs/validation change 30): the cache keeps its dirty chunks in a
// list of their own, ordered with the clean ones by a use stamp; victims must still be the least
// recent chunks, and a store must write back exactly the least recent dirty chunks over the limit.
TEST_CASE("L2Cache with a dirty limit equals the reference on random accesses", "[sim][l2][cache]") {
    std::mt19937_64 rng(20261125);
    for (double limit : {0.25, 0.5, 1.0}) {
        for (int round = 0; round < 15; ++round) {
            const std::int64_t capacity = std::int64_t{1} << std::uniform_int_distribution<int>(9, 16)(rng);
            const int nbuf = std::uniform_int_distribution<int>(1, 4)(rng);
            L2Cache cache;
            cache.reset(capacity, 32, static_cast<std::size_t>(nbuf), limit);
            const std::vector<RefBuffer> buffers = random_buffers(rng, nbuf, 12, 18, cache);
            RefCache ref(capacity, buffers, limit);
            for (int op = 0; op < 2000; ++op) {
                const auto id = static_cast<std::uint32_t>(std::uniform_int_distribution<int>(0, nbuf - 1)(rng));
                const RefBuffer& b = buffers[id];
                const std::int64_t begin = std::uniform_int_distribution<std::int64_t>(0, b.bytes)(rng);
                const std::int64_t end =
                    std::min(b.bytes, begin + std::uniform_int_distribution<std::int64_t>(0, 4 * b.chunk_bytes)(rng));
                const bool store = std::uniform_int_distribution<int>(0, 2)(rng) == 0;
                L2Access got, want;
                if (store) cache.store(id, begin, end, got);
                else cache.load(id, begin, end, got);
                ref.touch(id, begin, end, store, want);
                INFO("limit " << limit << " round " << round << " op " << op);
                require_same(got, want, cache, ref);
                REQUIRE(cache.dirty_bytes() <= static_cast<std::int64_t>(limit * static_cast<double>(capacity)) +
                                                   b.chunk_bytes);
            }
        }
    }
}

TEST_CASE("L2Cache: a store stream keeps the limit dirty and writes back the rest", "[sim][l2][cache]") {
    const std::int64_t capacity = 1 << 20, chunk = 4096;
    for (double limit : {0.0, 0.474, 1.0}) {
        L2Cache cache;
        cache.reset(capacity, chunk, 2, limit);
        cache.set_buffer(0, 8 * capacity, chunk);
        cache.set_buffer(1, 8 * capacity, chunk);
        L2Access fill;
        cache.load(1, 0, capacity, fill);  // full of clean data
        L2Access st;
        cache.store(0, 0, 3 * capacity, st);
        const std::int64_t kept = limit > 0 ? static_cast<std::int64_t>(limit * capacity) / chunk * chunk : capacity;
        INFO("limit " << limit);
        CHECK(cache.dirty_bytes() == kept);
        CHECK(st.writeback_bytes == 3 * capacity - kept);
    }
}

// ---- L2System: the partitioned L2 ------------------------------------------------------------

using tilescope::sim::L2System;

namespace {

// The partition rules of l2_cache.hpp written out with std::list LRUs, one per partition.
class RefPartitioned {
public:
    RefPartitioned(std::int64_t capacity, int parts, std::vector<RefBuffer> buffers, const L2System& homes)
        : cap_(capacity / parts), buffers_(std::move(buffers)), parts_(static_cast<std::size_t>(parts)), homes_(homes) {}

    void touch(int p, std::uint32_t id, std::int64_t begin, std::int64_t end, bool is_store, L2Access& acc) {
        if (end <= begin) return;
        const RefBuffer& b = buffers_[id];
        acc.requested_bytes += end - begin;
        for (std::int64_t c = begin / b.chunk_bytes; c <= (end - 1) / b.chunk_bytes; ++c) {
            const std::int64_t c_begin = c * b.chunk_bytes;
            const std::int64_t overlap = std::min(end, c_begin + b.chunk_bytes) - std::max(begin, c_begin);
            std::int64_t chunk = b.chunk_bytes;
            if (b.bytes > c_begin) chunk = std::min(chunk, b.bytes - c_begin);
            const Key key{id, c};
            const int h = homes_.home(id, static_cast<std::uint64_t>(c));
            Part& near = parts_[static_cast<std::size_t>(p)];
            Part& home = parts_[static_cast<std::size_t>(h)];
            if (is_store) {
                if (h != p) {
                    acc.far_bytes += overlap;
                    if (near.index.count(key) != 0) erase(near, key);
                }
                if (home.index.count(key) != 0) use(home, key, true);
                else if (!add(home, key, chunk, true, acc)) acc.writeback_bytes += overlap;
                continue;
            }
            if (near.index.count(key) != 0) {
                acc.hit_bytes += overlap;
                use(near, key, false);
                continue;
            }
            if (h != p) {
                acc.far_bytes += overlap;
                if (home.index.count(key) != 0) {
                    acc.hit_bytes += overlap;
                    use(home, key, false);
                } else {
                    acc.fill_bytes += chunk;
                    add(home, key, chunk, false, acc);
                }
            } else {
                acc.fill_bytes += chunk;
            }
            add(near, key, chunk, false, acc);
        }
    }
    std::int64_t dirty_bytes() const {
        std::int64_t s = 0;
        for (const Part& q : parts_) for (const Entry& e : q.lru) s += e.dirty ? e.bytes : 0;
        return s;
    }
    std::int64_t used_bytes() const {
        std::int64_t s = 0;
        for (const Part& q : parts_) for (const Entry& e : q.lru) s += e.bytes;
        return s;
    }

private:
    using Key = std::pair<std::uint32_t, std::int64_t>;
    struct Entry {
        Key key;
        std::int64_t bytes = 0;
        bool dirty = false;
    };
    struct Part {
        std::list<Entry> lru;
        std::map<Key, std::list<Entry>::iterator> index;
        std::int64_t used = 0;
    };
    void use(Part& q, const Key& k, bool dirty) {
        auto it = q.index[k];
        it->dirty = it->dirty || dirty;
        q.lru.splice(q.lru.begin(), q.lru, it);
    }
    void erase(Part& q, const Key& k) {
        auto it = q.index[k];
        q.used -= it->bytes;
        q.lru.erase(it);
        q.index.erase(k);
    }
    bool add(Part& q, const Key& k, std::int64_t chunk, bool dirty, L2Access& acc) {
        if (chunk > cap_) return false;
        while (q.used + chunk > cap_ && !q.lru.empty()) {
            const Entry& v = q.lru.back();
            if (v.dirty) acc.writeback_bytes += v.bytes;
            q.used -= v.bytes;
            q.index.erase(v.key);
            q.lru.pop_back();
        }
        q.lru.push_front(Entry{k, chunk, dirty});
        q.index[k] = q.lru.begin();
        q.used += chunk;
        return true;
    }
    std::int64_t cap_;
    std::vector<RefBuffer> buffers_;
    std::vector<Part> parts_;
    const L2System& homes_;
};

}  // namespace

TEST_CASE("L2System with one partition is L2Cache", "[sim][l2][cache]") {
    std::mt19937_64 rng(7);
    L2System sys;
    L2Cache one;
    sys.reset(1 << 14, 1, 32, 2);
    one.reset(1 << 14, 32, 2);
    for (std::uint32_t id = 0; id < 2; ++id) {
        sys.set_buffer(id, 1 << 16, 256 << id);
        one.set_buffer(id, 1 << 16, 256 << id);
    }
    for (int op = 0; op < 5000; ++op) {
        const auto id = static_cast<std::uint32_t>(op % 2);
        const std::int64_t begin = std::uniform_int_distribution<std::int64_t>(0, (1 << 16) - 1)(rng);
        const std::int64_t end = std::min<std::int64_t>(1 << 16, begin + std::uniform_int_distribution<std::int64_t>(1, 2048)(rng));
        const bool store = op % 5 == 0;
        const int sm = static_cast<int>(rng() % 132);
        L2Access got, want;
        if (store) {
            sys.store(sys.partition_of_sm(sm), id, begin, end, got);
            one.store(id, begin, end, want);
        } else {
            sys.load(sys.partition_of_sm(sm), id, begin, end, got);
            one.load(id, begin, end, want);
        }
        REQUIRE(got.hit_bytes == want.hit_bytes);
        REQUIRE(got.fill_bytes == want.fill_bytes);
        REQUIRE(got.writeback_bytes == want.writeback_bytes);
        REQUIRE(got.far_bytes == 0);
    }
}

TEST_CASE("L2System with two partitions equals the reference rules on random accesses", "[sim][l2][cache]") {
    std::mt19937_64 rng(20261123);
    for (int round = 0; round < 30; ++round) {
        const std::int64_t capacity = std::int64_t{1} << std::uniform_int_distribution<int>(10, 16)(rng);
        const int nbuf = std::uniform_int_distribution<int>(1, 3)(rng);
        L2System sys;
        sys.reset(capacity, 2, 32, static_cast<std::size_t>(nbuf));
        const std::vector<RefBuffer> buffers = random_buffers(rng, nbuf, 11, 17, sys);
        RefPartitioned ref(capacity, 2, buffers, sys);
        for (int op = 0; op < 2000; ++op) {
            const auto id = static_cast<std::uint32_t>(std::uniform_int_distribution<int>(0, nbuf - 1)(rng));
            const RefBuffer& b = buffers[id];
            const std::int64_t begin = std::uniform_int_distribution<std::int64_t>(0, b.bytes)(rng);
            const std::int64_t end = std::min(b.bytes, begin + std::uniform_int_distribution<std::int64_t>(0, 4 * b.chunk_bytes)(rng));
            const bool store = std::uniform_int_distribution<int>(0, 3)(rng) == 0;
            const int p = static_cast<int>(rng() % 2);
            L2Access got, want;
            if (store) sys.store(p, id, begin, end, got);
            else sys.load(p, id, begin, end, got);
            ref.touch(p, id, begin, end, store, want);
            INFO("round " << round << " op " << op);
            require_same(got, want, sys, ref);
        }
    }
}

TEST_CASE("L2System: shared data is held once per partition", "[sim][l2][cache]") {
    constexpr std::int64_t kCap = 1 << 20, kChunk = 1024;
    auto passes = [&](int partitions, std::int64_t set_bytes) {
        L2System sys;
        sys.reset(kCap, partitions, kChunk, 1);
        sys.set_buffer(0, set_bytes, kChunk);
        std::vector<L2Access> acc(4);
        for (int pass = 0; pass < 4; ++pass) {
            // Both partitions read the whole set, chunk by chunk, interleaved.
            for (std::int64_t a = 0; a < set_bytes; a += kChunk) {
                sys.load(0, 0, a, a + kChunk, acc[static_cast<std::size_t>(pass)]);
                sys.load(1, 0, a, a + kChunk, acc[static_cast<std::size_t>(pass)]);
            }
        }
        return acc;
    };
    // 0.4 of the L2: every partition keeps its copy; after the first pass nothing leaves L2.
    constexpr std::int64_t kFits = 410 * kChunk, kTooBig = 768 * kChunk;
    const auto fits = passes(2, kFits);
    CHECK(fits[0].fill_bytes == kFits);  // each chunk read from HBM once, by its home
    CHECK(fits[0].far_bytes == kFits);   // one of the two partitions is always the far one
    for (int pass = 1; pass < 4; ++pass) {
        CHECK(fits[static_cast<std::size_t>(pass)].fill_bytes == 0);
        CHECK(fits[static_cast<std::size_t>(pass)].far_bytes == 0);
    }
    // 0.75 of the L2: one LRU of the whole capacity keeps it; two partitions cannot (each
    // would need 0.75 of the L2 for its copy) and stream it from HBM on every pass.
    const auto one = passes(1, kTooBig);
    const auto two = passes(2, kTooBig);
    CHECK(one[3].fill_bytes == 0);
    CHECK(two[3].fill_bytes >= kTooBig / 2);
}

TEST_CASE("L2System: a store from the far partition goes to its home and drops the near copy", "[sim][l2][cache]") {
    L2System sys;
    sys.reset(1 << 20, 2, 1024, 1);
    sys.set_buffer(0, 1 << 16, 1024);
    // A chunk homed in partition 1.
    std::uint64_t c = 0;
    while (sys.home(0, c) != 1) ++c;
    const auto a = static_cast<std::int64_t>(c) * 1024;
    L2Access load0;
    sys.load(0, 0, a, a + 1024, load0);  // miss: fill into home 1, copy in partition 0
    CHECK(load0.fill_bytes == 1024);
    CHECK(load0.far_bytes == 1024);
    CHECK(sys.used_bytes() == 2048);
    L2Access st;
    sys.store(0, 0, a, a + 512, st);
    CHECK(st.far_bytes == 512);
    CHECK(st.fill_bytes == 0);
    CHECK(sys.used_bytes() == 1024);  // the copy in partition 0 is gone
    CHECK(sys.dirty_bytes() == 1024);
    L2Access again;
    sys.load(0, 0, a, a + 1024, again);  // near miss, far hit on the dirty home line
    CHECK(again.fill_bytes == 0);
    CHECK(again.hit_bytes == 1024);
    CHECK(again.far_bytes == 1024);
}

// Change 49: a far store with store_copy keeps a clean copy near, so the SM's next load of it
// hits in its own partition; the home still holds the only dirty copy.
TEST_CASE("L2System with store_copy: a far store leaves a clean near copy", "[sim][l2][cache][change49]") {
    L2System sys;
    sys.reset(1 << 20, 2, 1024, 1, 0.0, 0, true);
    sys.set_buffer(0, 1 << 16, 1024);
    std::uint64_t c = 0;
    while (sys.home(0, c) != 1) ++c;
    const auto a = static_cast<std::int64_t>(c) * 1024;
    L2Access st;
    sys.store(0, 0, a, a + 1024, st);  // from partition 0, homed in 1
    CHECK(st.far_bytes == 1024);
    CHECK(st.fill_bytes == 0);
    CHECK(sys.used_bytes() == 2048);  // dirty at home, clean copy near
    CHECK(sys.dirty_bytes() == 1024);
    L2Access again;
    sys.load(0, 0, a, a + 1024, again);
    CHECK(again.hit_bytes == 1024);
    CHECK(again.far_bytes == 0);  // served by the near copy
    // A second store keeps one copy per partition, not two.
    L2Access st2;
    sys.store(0, 0, a, a + 1024, st2);
    CHECK(sys.used_bytes() == 2048);
    CHECK(sys.dirty_bytes() == 1024);
}

// Change 49: sampled victims (ways > 0). Reading D bytes twice through a cache of C: the exact
// LRU keeps all of it when D < C and none of it when C < D (a cyclic pattern evicts each chunk
// just before its reuse); a W-way sampled cache has a soft edge: it loses some below C and keeps
// some above, less of either the larger W is, and a run is reproducible.
TEST_CASE("L2Cache with sampled victims has a soft edge", "[sim][l2][cache][change49]") {
    constexpr std::int64_t kCap = 4 << 20, kChunk = 4096;
    auto reread_misses = [&](int ways, double size_share) {
        L2Cache cache;
        cache.reset(kCap, kChunk, 1, 0.0, ways, 12345);
        const auto bytes = static_cast<std::int64_t>(size_share * kCap) / kChunk * kChunk;
        cache.set_buffer(0, bytes, kChunk);
        L2Access first, second;
        for (std::int64_t a = 0; a < bytes; a += kChunk) cache.load(0, a, a + kChunk, first);
        for (std::int64_t a = 0; a < bytes; a += kChunk) cache.load(0, a, a + kChunk, second);
        CHECK(first.fill_bytes == bytes);
        CHECK(cache.used_bytes() <= kCap);
        return static_cast<double>(second.fill_bytes) / static_cast<double>(bytes);
    };
    CHECK(reread_misses(0, 0.9) == 0.0);
    CHECK(reread_misses(0, 1.1) == 1.0);
    // (Below the capacity nothing is evicted at all: the soft edge shows once the cache is full,
    // so 0.9 of it read after a first 0.5 that filled it.)
    for (const int w : {4, 12}) {
        INFO("ways " << w);
        const double above = reread_misses(w, 1.1);
        CHECK(above > 0.05);
        CHECK(above < 0.95);
        CHECK(reread_misses(w, 1.1) == above);  // same seed, same victims
    }
    CHECK(reread_misses(12, 1.1) > reread_misses(4, 1.1));  // more ways: closer to the LRU
    CHECK(reread_misses(12, 1.6) > reread_misses(12, 1.1));
    // Filled beforehand by other data, a set smaller than the cache loses part of it.
    L2Cache cache;
    cache.reset(kCap, kChunk, 2, 0.0, 8, 99);
    cache.set_buffer(0, kCap, kChunk);
    cache.set_buffer(1, kCap, kChunk);
    L2Access fill, first, second;
    for (std::int64_t a = 0; a < kCap; a += kChunk) cache.load(1, a, a + kChunk, fill);
    const std::int64_t part = kCap * 8 / 10 / kChunk * kChunk;
    for (std::int64_t a = 0; a < part; a += kChunk) cache.load(0, a, a + kChunk, first);
    for (std::int64_t a = 0; a < part; a += kChunk) cache.load(0, a, a + kChunk, second);
    CHECK(second.fill_bytes > 0);         // the exact LRU would keep every chunk of it
    CHECK(second.fill_bytes < part / 2);  // but most of it stays
}

// The copy pattern of changes 74 and 91: X (buffer 0) read chunk by chunk and, with `copy`, Y
// (buffer 1, as large) stored beside it, then X read again, through `cache` (reset by the caller,
// buffers set here). Returns the share of X's re-read that missed. Checks on the way that the room
// the chunks take never passes the capacity and that every stored byte is written back or dirty.
static double copy_pattern_reread_misses(L2Cache& cache, std::int64_t cap, std::int64_t chunk, bool copy, double size_share) {
    const auto bytes = static_cast<std::int64_t>(size_share * static_cast<double>(cap)) / chunk * chunk;
    cache.set_buffer(0, bytes, chunk);
    cache.set_buffer(1, bytes, chunk);
    L2Access first, second;
    bool within = true;
    for (std::int64_t a = 0; a < bytes; a += chunk) {
        cache.load(0, a, a + chunk, first);
        if (copy) cache.store(1, a, a + chunk, first);
        within = within && cache.used_bytes() <= cap;
    }
    for (std::int64_t a = 0; a < bytes; a += chunk) cache.load(0, a, a + chunk, second);
    CHECK(within);
    CHECK(cache.used_bytes() <= cap);
    CHECK(first.writeback_bytes + second.writeback_bytes + cache.dirty_bytes() == (copy ? bytes : 0));
    return static_cast<double>(second.fill_bytes) / static_cast<double>(bytes);
}

// Change 74: clean victims. X read, Y stored (interleaved, as a copy kernel does), then X read
// again, through a sampled cache of C. With clean victims a newcomer evicts clean chunks first,
// so the dirty Y stays and X is lost sooner than when Y's old chunks go with the rest; a
// read-only stream has no dirty chunk and is unchanged; a victim is dirty only when every chunk
// drawn is (a cache full of dirty chunks still takes a newcomer); reset() turns it off.
TEST_CASE("L2Cache with clean victims keeps dirty chunks and loses clean ones first", "[sim][l2][cache][change74]") {
    constexpr std::int64_t kCap = 4 << 20, kChunk = 4096;
    auto reread_misses = [&](bool clean_victims, bool copy, double size_share) {
        L2Cache cache;
        cache.reset(kCap, kChunk, 2, 0.0, 12, 777);
        cache.set_clean_victims(clean_victims);
        return copy_pattern_reread_misses(cache, kCap, kChunk, copy, size_share);
    };
    for (const double share : {0.6, 0.75}) {  // X + Y = 1.2 and 1.5 of the cache
        INFO("X = " << share << " of the cache");
        const double lru = reread_misses(false, true, share), clean = reread_misses(true, true, share);
        CHECK(clean > lru + 0.1);
        CHECK(reread_misses(true, true, share) == clean);  // reproducible
    }
    for (const double share : {0.9, 1.1})
        CHECK(reread_misses(true, false, share) == reread_misses(false, false, share));  // nothing dirty
    // Every chunk dirty: the victim is then a dirty chunk (written back), and the store goes in.
    L2Cache cache;
    cache.reset(kCap, kChunk, 1, 0.0, 12, 5);
    cache.set_clean_victims(true);
    cache.set_buffer(0, 2 * kCap, kChunk);
    L2Access st;
    for (std::int64_t a = 0; a < 2 * kCap; a += kChunk) cache.store(0, a, a + kChunk, st);
    CHECK(cache.used_bytes() <= kCap);
    CHECK(st.writeback_bytes + cache.dirty_bytes() == 2 * kCap);
    CHECK(cache.dirty_bytes() > kCap - 16 * kChunk);
}

// Change 91: a dirty weight. X read and Y stored (a copy), then X read again: with a weight
// k > 1 each stored chunk takes k times its bytes, so less of X stays; a read-only stream has no
// dirty chunk and is unchanged; the room the chunks take never passes the capacity, and every
// stored byte is written back or still dirty. Weight 1 is the default, bit for bit.
TEST_CASE("L2Cache with a dirty weight: stored chunks take more room", "[sim][l2][cache][change91]") {
    constexpr std::int64_t kCap = 4 << 20, kChunk = 4096;
    auto copy_then_reread = [&](int ways, double weight, bool copy, double size_share, bool set_weight = true) {
        L2Cache cache;
        cache.reset(kCap, kChunk, 2, 0.0, ways, 4242);
        if (set_weight) cache.set_dirty_weight(weight);
        return copy_pattern_reread_misses(cache, kCap, kChunk, copy, size_share);
    };
    for (const int ways : {0, 12}) {
        INFO("ways " << ways);
        for (const double share : {0.3, 0.45}) {  // X + Y = 0.6 and 0.9 of the cache: all fits at weight 1
            INFO("X = " << share << " of the cache");
            CHECK(copy_then_reread(ways, 1.0, true, share) == 0.0);
            if (share > 0.4) CHECK(copy_then_reread(ways, 2.0, true, share) > 0.1);  // 0.45 + 2 x 0.45 > 1: X is lost
        }
        const double one = copy_then_reread(ways, 1.0, true, 0.45);
        CHECK(copy_then_reread(ways, 1.0, true, 0.45, false) == one);  // 1 = the default
        CHECK(copy_then_reread(ways, 1.5, true, 0.45) >= one);
        CHECK(copy_then_reread(ways, 3.0, true, 0.45) > copy_then_reread(ways, 2.0, true, 0.45));
        for (const double share : {0.9, 1.1})  // nothing dirty: the weight changes nothing
            CHECK(copy_then_reread(ways, 2.0, false, share) == copy_then_reread(ways, 1.0, false, share));
    }
    // A clean chunk made dirty by a store grows its room: a cache full of clean chunks, then
    // stores over all of them, ends at most full, the stored bytes written back or dirty.
    L2Cache cache;
    cache.reset(kCap, kChunk, 1, 0.0, 0, 1);
    cache.set_dirty_weight(2.0);
    cache.set_buffer(0, kCap, kChunk);
    L2Access acc;
    for (std::int64_t a = 0; a < kCap; a += kChunk) cache.load(0, a, a + kChunk, acc);
    CHECK(cache.used_bytes() == kCap);
    for (std::int64_t a = 0; a < kCap; a += kChunk) cache.store(0, a, a + kChunk, acc);
    CHECK(cache.used_bytes() <= kCap);
    CHECK(cache.dirty_bytes() <= kCap / 2);
    CHECK(cache.dirty_bytes() > kCap / 2 - 2 * kChunk);
    CHECK(acc.writeback_bytes + cache.dirty_bytes() == kCap);
    cache.reset(kCap, kChunk, 1, 0.0, 0, 1);  // reset: weight 1 again
    cache.set_buffer(0, kCap, kChunk);
    L2Access again;
    for (std::int64_t a = 0; a < kCap; a += kChunk) cache.store(0, a, a + kChunk, again);
    CHECK(cache.dirty_bytes() == kCap);
    CHECK(again.writeback_bytes == 0);
}

// Change 91 (change 78's rule): a dirty age weight w < 1 with sampled victims. In the copy
// pattern the stored Y is counted younger than it is, so clean X goes first and its re-read misses
// more than with w = 1; nothing dirty, nothing changes; w = 1 is the default, bit for bit.
TEST_CASE("L2Cache with a dirty age weight keeps stored chunks longer", "[sim][l2][cache][change91]") {
    constexpr std::int64_t kCap = 4 << 20, kChunk = 4096;
    auto reread_misses = [&](double w, bool copy, double size_share, bool set = true) {
        L2Cache cache;
        cache.reset(kCap, kChunk, 2, 0.0, 12, 777);
        if (set) cache.set_dirty_age_weight(w);
        return copy_pattern_reread_misses(cache, kCap, kChunk, copy, size_share);
    };
    for (const double share : {0.6, 0.75}) {
        INFO("X = " << share << " of the cache");
        const double one = reread_misses(1.0, true, share);
        CHECK(reread_misses(1.0, true, share, false) == one);
        CHECK(reread_misses(0.5, true, share) > one + 0.05);
        CHECK(reread_misses(0.5, true, share) == reread_misses(0.5, true, share));  // reproducible
    }
    for (const double share : {0.9, 1.1}) CHECK(reread_misses(0.5, false, share) == reread_misses(1.0, false, share));
}

TEST_CASE("L2System: chunk homes are balanced over the partitions", "[sim][l2][cache]") {
    L2System sys;
    sys.reset(1 << 20, 2, 1024, 3);
    for (std::uint32_t id = 0; id < 3; ++id) {
        int in_one = 0;
        for (std::uint64_t c = 0; c < 10000; ++c) in_one += sys.home(id, c);
        CHECK(in_one > 4700);
        CHECK(in_one < 5300);
    }
}

// Change 43: with a clock, a load hit on a chunk whose fill is still in flight is pending until
// the fill lands; without one (the default) nothing ever is.
TEST_CASE("L2Cache: a hit on a chunk being filled is pending until the fill lands", "[sim][l2][cache][change43]") {
    L2Cache c;
    c.reset(1 << 20, 1024, 1);
    c.set_buffer(0, 1 << 16, 1024);
    L2Access a, b, d, e;
    c.load(0, 0, 4096, a);  // no clock: plain fills and hits
    c.load(0, 0, 4096, b);
    CHECK(a.fill_bytes == 4096);
    CHECK(b.hit_bytes == 4096);
    CHECK(b.pending_bytes == 0);
    c.set_clock(100, 700);
    c.load(0, 4096, 8192, a);  // filled, lands at 700
    c.set_clock(300, 900);
    c.load(0, 0, 8192, d);  // the first 4 KiB settled, the second in flight
    CHECK(d.hit_bytes == 8192);
    CHECK(d.pending_bytes == 4096);
    CHECK(d.pending_until_ns == 700);
    c.set_clock(700, 1300);
    c.load(0, 4096, 8192, e);  // landed
    CHECK(e.pending_bytes == 0);
    L2Access s;
    c.set_clock(800, 1400);
    c.load(0, 8192, 9216, s);
    c.store(0, 8192, 9216, s);  // a store is never pending
    CHECK(s.pending_bytes == 0);
}

TEST_CASE("L2System: far hits and near copies of a fill in flight are pending", "[sim][l2][cache][change43]") {
    constexpr std::int64_t kChunk = 1024, kSet = 64 * kChunk;
    L2System sys;
    sys.reset(1 << 22, 2, kChunk, 1);
    sys.set_buffer(0, kSet, kChunk);
    sys.set_clock(0, 600);
    L2Access first, second, third, late;
    sys.load(0, 0, 0, kSet, first);  // partition 0 fills every chunk (at its home), landing at 600
    CHECK(first.fill_bytes == kSet);
    sys.set_clock(50, 650);
    sys.load(1, 0, 0, kSet, second);  // partition 1: home hits or far hits, all on fills in flight
    CHECK(second.fill_bytes == 0);
    CHECK(second.pending_bytes == kSet);
    CHECK(second.pending_until_ns == 600);
    sys.set_clock(100, 700);
    sys.load(1, 0, 0, kSet, third);  // partition 1's own copies land with the home's fill
    CHECK(third.pending_bytes == kSet);
    sys.set_clock(600, 1200);
    sys.load(0, 0, 0, kSet, late);
    sys.load(1, 0, 0, kSet, late);
    CHECK(late.pending_bytes == 0);
}
