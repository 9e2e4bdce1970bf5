// L1Cache against a reference LRU (std::list + std::map) on random traffic: same hits, same
// contents, every step; plus the edge cases (capacity 0, a chunk larger than the cache).
#include <catch2/catch.hpp>

#include <cstdint>
#include <list>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "simulator/l1_cache.hpp"

using tilescope::sim::L1Cache;

namespace {
struct ReferenceLru {
    std::int64_t capacity = 0, used = 0;
    std::list<std::pair<std::uint64_t, std::int64_t>> order;  // front = most recent
    std::map<std::uint64_t, std::list<std::pair<std::uint64_t, std::int64_t>>::iterator> where;
    bool hit(std::uint64_t k) {
        auto it = where.find(k);
        if (it == where.end()) return false;
        order.splice(order.begin(), order, it->second);
        return true;
    }
    void insert(std::uint64_t k, std::int64_t bytes) {
        if (bytes > capacity) return;
        while (used + bytes > capacity) {
            used -= order.back().second;
            where.erase(order.back().first);
            order.pop_back();
        }
        order.emplace_front(k, bytes);
        where[k] = order.begin();
        used += bytes;
    }
};
}  // namespace

TEST_CASE("L1Cache behaves as a reference LRU on random traffic", "[sim][l1]") {
    std::mt19937_64 rng(12345);
    for (const std::int64_t capacity : {std::int64_t{4096}, std::int64_t{65536}, std::int64_t{229376}}) {
        L1Cache l1;
        l1.reset(capacity, 128);
        ReferenceLru ref;
        ref.capacity = capacity;
        // Two buffers, chunks of 128 or 512 B, keys drawn so that roughly half the lookups hit.
        const std::uint64_t span = static_cast<std::uint64_t>(capacity / 128);
        for (int step = 0; step < 200000; ++step) {
            const std::uint32_t id = static_cast<std::uint32_t>(rng() % 2);
            const std::uint64_t c = rng() % (2 * span);
            const std::int64_t bytes = id == 0 ? 128 : 512;
            const std::uint64_t key = (std::uint64_t{id} << 44) | c;
            const bool h = l1.hit(id, c);
            REQUIRE(h == ref.hit(key));
            if (!h) {
                l1.insert(id, c, bytes);
                ref.insert(key, bytes);
            }
            REQUIRE(l1.used_bytes() == ref.used);
            REQUIRE(l1.chunks() == ref.order.size());
        }
        // Same contents at the end.
        for (const auto& [key, bytes] : ref.order) CHECK(l1.hit(static_cast<std::uint32_t>(key >> 44), key & ((std::uint64_t{1} << 44) - 1)));
    }
}

TEST_CASE("L1Cache: no capacity, oversized chunks, clipped chunks, reset", "[sim][l1]") {
    L1Cache none;
    none.reset(0, 32);
    none.insert(0, 1, 32);
    CHECK_FALSE(none.hit(0, 1));
    L1Cache l1;
    l1.reset(1024, 256);
    l1.insert(0, 7, 2048);  // larger than the cache: not kept
    CHECK_FALSE(l1.hit(0, 7));
    // Chunks smaller than min_chunk_bytes (a buffer's clipped last chunk) still fit the table:
    // 100 inserts of 8 B stay within capacity and the table never fills up.
    for (std::uint64_t c = 0; c < 100; ++c) l1.insert(1, c, 8);
    CHECK(l1.used_bytes() <= 1024);
    CHECK(l1.hit(1, 99));
    l1.reset(1024, 256);
    CHECK(l1.chunks() == 0);
    CHECK_FALSE(l1.hit(1, 99));
}

// Random replacement (Calibration::l1_random_replacement, docs/validation change 25): the same
// seed gives the same victims; the cache never exceeds its capacity; and, unlike an LRU, it
// misses re-reads of a working set smaller than itself once other chunks keep arriving.
TEST_CASE("L1Cache random replacement: reproducible, within capacity, misses what an LRU keeps", "[sim][l1]") {
    auto run = [](std::uint64_t seed) {
        L1Cache l1;
        l1.reset(64 * 1024, 512, seed);
        std::vector<int> hits;
        // A working set of 64 chunks of 512 B (32 KiB, half the cache) read again and again while
        // a stream of new chunks (another buffer) passes through.
        std::uint64_t fresh = 0;
        for (int round = 0; round < 50; ++round) {
            for (std::uint64_t c = 0; c < 64; ++c) {
                const bool h = l1.hit(0, c);
                hits.push_back(h ? 1 : 0);
                if (!h) l1.insert(0, c, 512);
                for (int k = 0; k < 2; ++k) l1.insert(1, fresh++, 512);
                REQUIRE(l1.used_bytes() <= 64 * 1024);
            }
        }
        return hits;
    };
    const auto a = run(7), b = run(7), other = run(8);
    CHECK(a == b);
    CHECK(a != other);
    int hits = 0;
    for (std::size_t i = 64; i < a.size(); ++i) hits += a[i];
    const double rate = static_cast<double>(hits) / static_cast<double>(a.size() - 64);
    // Between two reads of a chunk 128 stream chunks (64 KiB) and 63 working-set reads arrive:
    // an LRU of 64 KiB (128 chunks) keeps none of the working set (it is always the oldest);
    // random replacement, one of 128 chunks evicted per insert, keeps about
    // exp(-(128 + misses) / 128) of it, a third or so.
    CHECK(rate > 0.2);
    CHECK(rate < 0.6);
    L1Cache lru;
    lru.reset(64 * 1024, 512);
    std::uint64_t fresh = 0;
    int lru_hits = 0;
    for (int round = 0; round < 50; ++round) {
        for (std::uint64_t c = 0; c < 64; ++c) {
            if (lru.hit(0, c)) ++lru_hits;
            else lru.insert(0, c, 512);
            for (int k = 0; k < 2; ++k) lru.insert(1, fresh++, 512);
        }
    }
    CHECK(lru_hits == 0);
}
