#include "simulator/l2_cache.hpp"

#include <algorithm>
#include <bit>

namespace tilescope::sim {

void L2Cache::reset(std::int64_t capacity_bytes, std::int64_t min_chunk_bytes, std::size_t buffers) {
    capacity_bytes_ = std::max<std::int64_t>(capacity_bytes, 0);
    used_bytes_ = 0;
    dirty_bytes_ = 0;
    nodes_.clear();
    free_.clear();
    head_ = tail_ = kNil;
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

void L2Cache::list_unlink(std::uint32_t n) {
    Node& x = nodes_[n];
    if (x.prev != kNil) nodes_[x.prev].next = x.next; else head_ = x.next;
    if (x.next != kNil) nodes_[x.next].prev = x.prev; else tail_ = x.prev;
    x.prev = x.next = kNil;
}

void L2Cache::list_push_front(std::uint32_t n) {
    Node& x = nodes_[n];
    x.prev = kNil;
    x.next = head_;
    if (head_ != kNil) nodes_[head_].prev = n;
    head_ = n;
    if (tail_ == kNil) tail_ = n;
}

void L2Cache::evict_one(L2Access& acc) {
    const std::uint32_t victim = tail_;
    Node& v = nodes_[victim];
    if (v.dirty) {
        acc.writeback_bytes += v.bytes;
        dirty_bytes_ -= v.bytes;
    }
    used_bytes_ -= v.bytes;
    map_erase(v.key);
    --live_;
    list_unlink(victim);
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
        const std::uint64_t key = (static_cast<std::uint64_t>(id) << kKeyShift) | uc;
        std::uint32_t n = kNil;
        {
            const std::uint32_t d = dir_entry(id, uc);
            if (d != kNil) n = pool_[(static_cast<std::size_t>(d) << kPageBits) + (uc & (kPageChunks - 1))];
        }
        if (n != kNil) {
            if (!is_store) acc.hit_bytes += overlap;
            if (is_store && !nodes_[n].dirty) {
                nodes_[n].dirty = true;
                dirty_bytes_ += nodes_[n].bytes;
            }
            if (head_ != n) {
                list_unlink(n);
                list_push_front(n);
            }
            continue;
        }
        // Miss: the chunk's size is clipped at the buffer's end.
        std::int64_t chunk = b.chunk_bytes;
        if (b.bytes > c_begin) chunk = std::min(chunk, b.bytes - c_begin);
        if (chunk > capacity_bytes_) {  // cannot be cached at all: streams through
            if (is_store) acc.writeback_bytes += overlap;
            else acc.fill_bytes += chunk;
            continue;
        }
        while (used_bytes_ + chunk > capacity_bytes_ && tail_ != kNil) evict_one(acc);
        std::uint32_t idx;
        if (!free_.empty()) {
            idx = free_.back();
            free_.pop_back();
        } else {
            idx = static_cast<std::uint32_t>(nodes_.size());
            nodes_.emplace_back();
        }
        Node& x = nodes_[idx];
        x.key = key;
        x.bytes = static_cast<std::uint32_t>(chunk);
        x.dirty = is_store;
        used_bytes_ += chunk;
        if (is_store) dirty_bytes_ += chunk;
        else acc.fill_bytes += chunk;
        ++live_;
        map_insert(id, uc, idx);
        list_push_front(idx);
    }
}

void L2Cache::load(std::uint32_t id, std::int64_t begin, std::int64_t end, L2Access& acc) {
    touch(id, begin, end, false, acc);
}

void L2Cache::store(std::uint32_t id, std::int64_t begin, std::int64_t end, L2Access& acc) {
    touch(id, begin, end, true, acc);
}

}  // namespace tilescope::sim
