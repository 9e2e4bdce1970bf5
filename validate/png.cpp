#include "validate/png.hpp"

#include <zlib.h>

#include <fstream>

namespace tilescope::validate {

namespace {

void put_u32(std::string& out, std::uint32_t v) {
    out.push_back(static_cast<char>((v >> 24) & 0xFFu));
    out.push_back(static_cast<char>((v >> 16) & 0xFFu));
    out.push_back(static_cast<char>((v >> 8) & 0xFFu));
    out.push_back(static_cast<char>(v & 0xFFu));
}

// A chunk is: length (data only), type, data, CRC-32 over type + data.
void put_chunk(std::string& out, const char type[4], const std::string& data) {
    put_u32(out, static_cast<std::uint32_t>(data.size()));
    std::string body(type, 4);
    body += data;
    out += body;
    const auto crc = ::crc32(0L, reinterpret_cast<const Bytef*>(body.data()),
                             static_cast<uInt>(body.size()));
    put_u32(out, static_cast<std::uint32_t>(crc));
}

}  // namespace

std::string encode_png(const Image& image) {
    const auto w = static_cast<std::size_t>(image.width());
    const auto h = static_cast<std::size_t>(image.height());
    // Scanlines with filter type 0 (None) in front of each row.
    std::string raw;
    raw.reserve(h * (1 + 3 * w));
    for (std::size_t y = 0; y < h; ++y) {
        raw.push_back('\0');
        raw.append(reinterpret_cast<const char*>(image.rgb().data() + y * 3 * w), 3 * w);
    }
    uLongf packed_size = compressBound(static_cast<uLong>(raw.size()));
    std::string packed(packed_size, '\0');
    compress2(reinterpret_cast<Bytef*>(packed.data()), &packed_size,
              reinterpret_cast<const Bytef*>(raw.data()), static_cast<uLong>(raw.size()), 9);
    packed.resize(packed_size);

    std::string out = "\x89PNG\r\n\x1a\n";
    std::string ihdr;
    put_u32(ihdr, static_cast<std::uint32_t>(w));
    put_u32(ihdr, static_cast<std::uint32_t>(h));
    ihdr += std::string{'\x08', '\x02', '\x00', '\x00', '\x00'};  // 8 bit, RGB, deflate, filter 0, no interlace
    put_chunk(out, "IHDR", ihdr);
    put_chunk(out, "IDAT", packed);
    put_chunk(out, "IEND", "");
    return out;
}

Status write_png(const Image& image, const std::string& path) {
    std::ofstream f(path, std::ios::binary);
    if (!f) return make_error("cannot open " + path + " for writing");
    const std::string bytes = encode_png(image);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!f) return make_error("cannot write " + path);
    return Status::success();
}

}  // namespace tilescope::validate
