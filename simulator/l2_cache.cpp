#include "simulator/l2_cache.hpp"

#include <algorithm>
#include <bit>

#include "simulator/splitmix.hpp"

namespace tilescope::sim {

void L2Cache::reset(std::int64_t capacity_bytes, std::int64_t min_chunk_bytes, std::size_t buffers,
                    double dirty_limit, int ways, std::uint64_t seed) {
    capacity_bytes_ = std::max<std::int64_t>(capacity_bytes, 0);
    split_ = dirty_limit > 0;
    ways_ = std::max(0, ways);
    clean_victims_ = false;
    dirty_weight_ = 1.0;
    dirty_age_weight_ = 1.0;
    rng_ = seed;
    tick_ = 0;
    now_ns_ = fill_ready_ns_ = 0;
    dirty_limit_bytes_ = static_cast<std::int64_t>(dirty_limit * static_cast<double>(capacity_bytes_));
    dirty_lru_.clear();
    used_bytes_ = 0;
    dirty_bytes_ = 0;
    nodes_.clear();
    stamps_.clear();
    live_ids_.clear();
    live_stamps_.clear();
    live_pos_.clear();
    free_.clear();
    lru_.clear();
    // The chunk map grows on demand (pages are allocated as chunks arrive), so the bound on live
    // chunks is not needed up front.
    (void)min_chunk_bytes;
    (void)buffers;
    live_ = 0;
    buffers_.clear();
    dir_.clear();
    pool_.clear();
    page_live_.clear();
    free_pages_.clear();
}

void L2Cache::set_buffer(std::uint32_t id, std::int64_t bytes, std::int64_t chunk_bytes) {
    if (buffers_.size() <= id) buffers_.resize(id + 1);
    BufferInfo& b = buffers_[id];
    b.bytes = bytes;
    b.chunk_bytes = chunk_bytes;
    b.chunk_shift = std::countr_zero(static_cast<std::uint64_t>(chunk_bytes));
    const auto chunks = static_cast<std::uint64_t>(std::max<std::int64_t>(bytes, 0)) >> b.chunk_shift;
    b.dir_pages = static_cast<std::size_t>((chunks >> kPageBits) + 1);
    b.dir_begin = dir_.size();
    dir_.resize(dir_.size() + b.dir_pages, kNil);
}

std::uint32_t& L2Cache::grow_dir(std::uint32_t id, std::size_t page) {
    BufferInfo& b = buffers_[id];
    const std::size_t pages = page + 1;
    const std::size_t begin = dir_.size();
    dir_.resize(begin + pages, kNil);
    std::copy_n(dir_.begin() + static_cast<std::ptrdiff_t>(b.dir_begin), b.dir_pages,
                dir_.begin() + static_cast<std::ptrdiff_t>(begin));
    std::fill_n(dir_.begin() + static_cast<std::ptrdiff_t>(b.dir_begin), b.dir_pages, kNil);
    b.dir_begin = begin;
    b.dir_pages = pages;
    return dir_[b.dir_begin + page];
}

void L2Cache::map_insert(std::uint32_t id, std::uint64_t c, std::uint32_t node) {
    std::uint32_t& d = dir_entry(id, c);
    if (d == kNil) {
        if (!free_pages_.empty()) {
            d = free_pages_.back();
            free_pages_.pop_back();
        } else {
            d = static_cast<std::uint32_t>(page_live_.size());
            page_live_.push_back(0);
            pool_.resize(pool_.size() + kPageChunks, kNil);
        }
    }
    pool_[(static_cast<std::size_t>(d) << kPageBits) + (c & (kPageChunks - 1))] = node;
    ++page_live_[d];
}

void L2Cache::map_erase(std::uint64_t key) {
    const auto id = static_cast<std::uint32_t>(key >> kKeyShift);
    const std::uint64_t c = key & kChunkMask;
    std::uint32_t& d = dir_entry(id, c);
    pool_[(static_cast<std::size_t>(d) << kPageBits) + (c & (kPageChunks - 1))] = kNil;
    if (--page_live_[d] == 0) {
        free_pages_.push_back(d);
        d = kNil;
    }
}

std::uint64_t L2Cache::next_random() {
    const std::uint64_t x = splitmix64(rng_);
    rng_ += 0x9e3779b97f4a7c15ull;
    return x;
}

// Sampled victims, chosen kBatch at a time when chunks are small: all kBatch x ways_ draws are
// made (and their stamps prefetched) before any is compared, and the victims' nodes before any is
// evicted, so the random reads overlap (a streaming launch evicts tens of millions of chunks).
// Each victim is still the least recent of its own ways_ draws; the batch leaves up to
// kBatch - 1 chunks free, at most 1/256 of the partition. A victim drawn twice is evicted once.
void L2Cache::evict_sampled(std::int64_t chunk, L2Access& acc) {
    constexpr int kBatch = 8;
    constexpr int kMaxDraws = 512;  // ways_ <= 256 (simulate.cpp checks it)
    const int batch = (kBatch * chunk <= capacity_bytes_ / 256) ? std::max(1, std::min(kBatch, kMaxDraws / ways_)) : 1;
    const auto n = static_cast<std::uint64_t>(live_ids_.size());
    std::size_t pos[kMaxDraws];
    const int draws = batch * ways_;
    for (int k = 0; k < draws; ++k) {
        pos[k] = static_cast<std::size_t>(((next_random() >> 32) * n) >> 32);  // uniform in [0, n), no division
        __builtin_prefetch(&live_stamps_[pos[k]]);
    }
    std::uint32_t victims[kBatch];
    if (clean_victims_) pick_victims<1>(pos, batch, victims);
    else if (dirty_age_weight_ != 1.0) pick_victims<2>(pos, batch, victims);
    else pick_victims<0>(pos, batch, victims);
    for (int j = 0; j < batch; ++j) {
        if (j + 1 < batch) prefetch_map_slot(nodes_[victims[j + 1]].key);
        const std::uint32_t v = victims[j];
        const std::uint32_t at = live_pos_[v];
        if (at < live_ids_.size() && live_ids_[at] == v) evict(v, acc);  // not drawn twice
    }
}

// A draw's victim is its least recent chunk. Rule 1 (clean_victims_, change 74): its least recent
// clean chunk, or its least recent chunk when every one drawn is dirty. Rule 2 (dirty_age_weight_,
// change 91): the chunk whose age is largest, a dirty chunk's age counted at dirty_age_weight_
// times its own. Rule 0 reads no node's dirty flag (a streaming launch calls this tens of
// millions of times).
template <int Rule>
void L2Cache::pick_victims(const std::size_t* pos, int batch, std::uint32_t* victims) {
    const auto clean = [&](std::size_t q) { return Rule != 1 || !nodes_[live_ids_[q]].dirty; };
    const auto age = [&](std::size_t q) {
        const double a = static_cast<double>(tick_ - live_stamps_[q]);
        return nodes_[live_ids_[q]].dirty ? a * dirty_age_weight_ : a;
    };
    for (int j = 0; j < batch; ++j) {
        std::size_t best = pos[j * ways_];
        if constexpr (Rule == 2) {
            double best_age = age(best);
            for (int k = 1; k < ways_; ++k) {
                const std::size_t q = pos[j * ways_ + k];
                const double a = age(q);
                if (a > best_age) {
                    best = q;
                    best_age = a;
                }
            }
        } else {
            bool best_clean = clean(best);
            for (int k = 1; k < ways_; ++k) {
                const std::size_t q = pos[j * ways_ + k];
                const bool q_clean = clean(q);
                if ((q_clean && !best_clean) || (q_clean == best_clean && live_stamps_[q] < live_stamps_[best])) {
                    best = q;
                    best_clean = q_clean;
                }
            }
        }
        victims[j] = live_ids_[best];
        __builtin_prefetch(&nodes_[victims[j]]);
    }
}

void L2Cache::unlist_live(std::uint32_t n) {
    const std::uint32_t pos = live_pos_[n], last = live_ids_.back();
    live_ids_[pos] = last;
    live_stamps_[pos] = live_stamps_.back();
    live_pos_[last] = pos;
    live_ids_.pop_back();
    live_stamps_.pop_back();
}

void L2Cache::evict_one(L2Access& acc) {
    // The least recent chunk: with a dirty limit the chunks sit in two lists, and the older tail goes.
    std::uint32_t victim = lru_.tail;
    if (split_ && dirty_lru_.tail != kNil && (victim == kNil || stamps_[dirty_lru_.tail] < stamps_[victim]))
        victim = dirty_lru_.tail;
    evict(victim, acc);
}

void L2Cache::limit_dirty(L2Access& acc) {
    while (split_ && dirty_bytes_ > dirty_limit_bytes_ && dirty_lru_.tail != kNil) evict(dirty_lru_.tail, acc);
    if (dirty_weight_ == 1.0) return;
    while (used_bytes_ > capacity_bytes_ && live_ > 0) {
        if (ways_ > 0) evict_sampled(1, acc);  // room, not a chunk's size, is short: a full batch
        else evict_one(acc);
    }
}

void L2Cache::prefetch_map_slot(std::uint64_t key) const {
    const auto id = static_cast<std::uint32_t>(key >> kKeyShift);
    const std::uint64_t c = key & kChunkMask;
    const BufferInfo& b = buffers_[id];
    const auto page = static_cast<std::size_t>(c >> kPageBits);
    if (page < b.dir_pages) {
        const std::uint32_t d = dir_[b.dir_begin + page];
        if (d != kNil) __builtin_prefetch(&pool_[(static_cast<std::size_t>(d) << kPageBits) + (c & (kPageChunks - 1))]);
    }
}

void L2Cache::evict(std::uint32_t victim, L2Access& acc) {
    Node& v = nodes_[victim];
    // Evictions walk the LRU list from its tail, through nodes scattered over a table of
    // megabytes: each is a cache miss on the host. The next victim (v.prev) was prefetched by the
    // previous eviction; prefetch the one after it and the next victim's map slot now, so that
    // a streaming insert finds them in cache (pure speed: nothing observable changes).
    if (ways_ == 0 && v.prev != kNil) {
        const Node& next = nodes_[v.prev];
        if (next.prev != kNil) __builtin_prefetch(&nodes_[next.prev]);
        prefetch_map_slot(next.key);
    }
    if (v.dirty) {
        acc.writeback_bytes += v.bytes;
        dirty_bytes_ -= v.bytes;
    }
    used_bytes_ -= room(v.bytes, v.dirty);
    map_erase(v.key);
    --live_;
    if (listed(v)) list_of(v).unlink(nodes_, victim);
    if (ways_ > 0) unlist_live(victim);
    free_.push_back(victim);
}

void L2Cache::touch(std::uint32_t id, std::int64_t begin, std::int64_t end, bool is_store,
                    L2Access& acc) {
    if (end <= begin) return;
    const BufferInfo& b = buffers_[id];
    acc.requested_bytes += end - begin;
    const std::int64_t first = begin >> b.chunk_shift;
    const std::int64_t last = (end - 1) >> b.chunk_shift;
    for (std::int64_t c = first; c <= last; ++c) {
        const std::int64_t c_begin = c << b.chunk_shift;
        const std::int64_t c_end = c_begin + b.chunk_bytes;
        const std::int64_t overlap = std::min(end, c_end) - std::max(begin, c_begin);
        const auto uc = static_cast<std::uint64_t>(c);
        const std::uint32_t n = find(id, uc);
        if (n != kNil) {
            if (!is_store) {
                acc.hit_bytes += overlap;
                note_pending(n, overlap, acc);
            }
            promote(n, is_store);
            if (is_store) limit_dirty(acc);
            continue;
        }
        const std::int64_t chunk = chunk_size(id, uc);  // clipped at the buffer's end
        if (!insert(id, uc, chunk, is_store, acc)) {  // cannot be cached at all: streams through
            if (is_store) acc.writeback_bytes += overlap;
            else acc.fill_bytes += chunk;
            continue;
        }
        if (!is_store) acc.fill_bytes += chunk;  // insert stamped its ready time
        else limit_dirty(acc);
    }
}

std::int64_t L2Cache::chunk_size(std::uint32_t id, std::uint64_t c) const {
    const BufferInfo& b = buffers_[id];
    const auto c_begin = static_cast<std::int64_t>(c << b.chunk_shift);
    std::int64_t chunk = b.chunk_bytes;
    if (b.bytes > c_begin) chunk = std::min(chunk, b.bytes - c_begin);
    return chunk;
}

void L2Cache::promote(std::uint32_t n, bool dirty) {
    if (split_ || ways_ > 0) stamp(n);
    Node& x = nodes_[n];
    if (dirty && !x.dirty) {
        if (listed(x)) list_of(x).unlink(nodes_, n);
        x.dirty = true;
        dirty_bytes_ += x.bytes;
        used_bytes_ += room(x.bytes, true) - x.bytes;  // limit_dirty makes the room
        if (listed(x)) list_of(x).push_front(nodes_, n);
        return;
    }
    if (listed(x)) list_of(x).to_front(nodes_, n);
}

bool L2Cache::insert(std::uint32_t id, std::uint64_t c, std::int64_t chunk, bool dirty, L2Access& acc) {
    const std::int64_t need = room(chunk, dirty);
    if (need > capacity_bytes_) return false;
    while (used_bytes_ + need > capacity_bytes_ && live_ > 0) {
        if (ways_ > 0) evict_sampled(chunk, acc);
        else evict_one(acc);
    }
    const std::uint32_t idx = take_node(nodes_, free_);
    Node& x = nodes_[idx];
    x.key = (static_cast<std::uint64_t>(id) << kKeyShift) | c;
    x.bytes = static_cast<std::uint32_t>(chunk);
    x.dirty = dirty;
    if (ways_ > 0) {
        if (live_pos_.size() < nodes_.size()) live_pos_.resize(nodes_.size(), 0);
        live_pos_[idx] = static_cast<std::uint32_t>(live_ids_.size());
        live_ids_.push_back(idx);
        live_stamps_.push_back(0);
    } else if (stamps_.size() < nodes_.size()) {
        stamps_.resize(nodes_.size(), 0);
    }
    stamp(idx);
    x.ready_ns = dirty ? 0.0 : fill_ready_ns_;  // a load's fill lands then (0 without a clock)
    used_bytes_ += need;
    if (dirty) dirty_bytes_ += chunk;
    ++live_;
    map_insert(id, c, idx);
    if (listed(x)) list_of(x).push_front(nodes_, idx);
    return true;
}

void L2Cache::drop(std::uint32_t n) {
    Node& v = nodes_[n];
    if (v.dirty) dirty_bytes_ -= v.bytes;  // callers drop clean copies; keep the count exact anyway
    used_bytes_ -= room(v.bytes, v.dirty);
    map_erase(v.key);
    --live_;
    if (listed(v)) list_of(v).unlink(nodes_, n);
    if (ways_ > 0) unlist_live(n);
    free_.push_back(n);
}

void L2Cache::load(std::uint32_t id, std::int64_t begin, std::int64_t end, L2Access& acc) {
    touch(id, begin, end, false, acc);
}

void L2Cache::store(std::uint32_t id, std::int64_t begin, std::int64_t end, L2Access& acc) {
    touch(id, begin, end, true, acc);
}

void L2System::reset(std::int64_t capacity_bytes, int partitions, std::int64_t min_chunk_bytes,
                     std::size_t buffers, double dirty_limit, int ways, bool store_copy) {
    const int p = std::max(1, partitions);
    store_copy_ = store_copy;
    parts_.assign(static_cast<std::size_t>(p), L2Cache{});
    for (std::size_t i = 0; i < parts_.size(); ++i)
        parts_[i].reset(std::max<std::int64_t>(capacity_bytes, 0) / p, min_chunk_bytes, buffers, dirty_limit, ways,
                        0x5851f42d4c957f2dull * (i + 1));
}

void L2System::set_buffer(std::uint32_t id, std::int64_t bytes, std::int64_t chunk_bytes) {
    for (auto& c : parts_) c.set_buffer(id, bytes, chunk_bytes);
}

int L2System::home(std::uint32_t id, std::uint64_t c) const {
    // splitmix64 of (buffer, chunk): neighbouring chunks get independent homes.
    const std::uint64_t x = splitmix64((static_cast<std::uint64_t>(id) << 44) ^ c);
    return static_cast<int>(x % static_cast<std::uint64_t>(parts_.size()));
}

std::int64_t L2System::dirty_bytes() const {
    std::int64_t s = 0;
    for (const auto& c : parts_) s += c.dirty_bytes();
    return s;
}

std::int64_t L2System::used_bytes() const {
    std::int64_t s = 0;
    for (const auto& c : parts_) s += c.used_bytes();
    return s;
}

void L2System::load(int partition, std::uint32_t id, std::int64_t begin, std::int64_t end, L2Access& acc) {
    if (parts_.size() == 1) parts_[0].load(id, begin, end, acc);
    else touch(partition, id, begin, end, false, acc);
}

void L2System::store(int partition, std::uint32_t id, std::int64_t begin, std::int64_t end, L2Access& acc) {
    if (parts_.size() == 1) parts_[0].store(id, begin, end, acc);
    else touch(partition, id, begin, end, true, acc);
}

void L2System::touch(int p, std::uint32_t id, std::int64_t begin, std::int64_t end, bool is_store,
                     L2Access& acc) {
    if (end <= begin) return;
    acc.requested_bytes += end - begin;
    L2Cache& near = parts_[static_cast<std::size_t>(p)];
    const int shift = near.chunk_shift(id);
    const std::int64_t first = begin >> shift;
    const std::int64_t last = (end - 1) >> shift;
    for (std::int64_t c = first; c <= last; ++c) {
        const std::int64_t c_begin = c << shift;
        const std::int64_t overlap = std::min(end, c_begin + (std::int64_t{1} << shift)) - std::max(begin, c_begin);
        const auto uc = static_cast<std::uint64_t>(c);
        if (!is_store) {  // the common case, a hit in the SM's own partition, needs no home
            const std::uint32_t n = near.find(id, uc);
            if (n != L2Cache::kNil) {
                acc.hit_bytes += overlap;
                near.note_pending(n, overlap, acc);
                near.promote(n, false);
                continue;
            }
        }
        const int h = home(id, uc);
        L2Cache& home_part = parts_[static_cast<std::size_t>(h)];
        const std::int64_t chunk = near.chunk_size(id, uc);
        if (is_store) {
            if (h != p) {
                acc.far_bytes += overlap;
                const std::uint32_t copy = near.find(id, uc);
                if (store_copy_) {  // the near copy is kept up to date, clean
                    if (copy != L2Cache::kNil) near.promote(copy, false);
                    else near.insert(id, uc, chunk, false, acc);
                } else if (copy != L2Cache::kNil) {
                    near.drop(copy);
                }
            }
            const std::uint32_t n = home_part.find(id, uc);
            if (n != L2Cache::kNil) home_part.promote(n, true);
            else if (!home_part.insert(id, uc, chunk, true, acc)) acc.writeback_bytes += overlap;  // streams through
            home_part.limit_dirty(acc);
            continue;
        }
        if (h == p) {
            acc.fill_bytes += chunk;
            near.insert(id, uc, chunk, false, acc);  // a chunk larger than the partition streams through
            continue;
        }
        acc.far_bytes += overlap;
        const std::uint32_t f = home_part.find(id, uc);
        if (f != L2Cache::kNil) {
            acc.hit_bytes += overlap;
            // The near copy lands with the home's fill if that is in flight, else at once.
            const double t = home_part.ready_ns(f);
            home_part.note_pending(f, overlap, acc);
            home_part.promote(f, false);
            if (near.insert(id, uc, chunk, false, acc) && near.fill_ready_ns() > 0)
                near.set_ready(near.find(id, uc), t > near.now_ns() ? t : 0.0);
        } else {
            acc.fill_bytes += chunk;
            home_part.insert(id, uc, chunk, false, acc);  // both copies land with this fill
            near.insert(id, uc, chunk, false, acc);
        }
    }
}

}  // namespace tilescope::sim
