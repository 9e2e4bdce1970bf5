// L1Cache against a reference LRU (std::list + std::map) on random traffic: same hits, same
// contents, every step; plus the edge cases (capacity 0, a chunk larger than the cache).
#include <catch2/catch.hpp>

#include <cstdint>
#include <list>
#include <map>
#include <random>
#include <utility>

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
