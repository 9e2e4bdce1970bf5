#include <catch2/catch.hpp>

#include <zlib.h>

#include <cstdint>
#include <string>

#include "validate/plot.hpp"
#include "validate/png.hpp"

using namespace tilescope::validate;

namespace {
std::uint32_t be32(const std::string& s, std::size_t at) {
    return (std::uint32_t(std::uint8_t(s[at])) << 24) | (std::uint32_t(std::uint8_t(s[at + 1])) << 16) |
           (std::uint32_t(std::uint8_t(s[at + 2])) << 8) | std::uint32_t(std::uint8_t(s[at + 3]));
}
}  // namespace

TEST_CASE("PNG: signature, chunk CRCs and pixels round-trip through zlib", "[validate][png]") {
    Image img(7, 3, {10, 20, 30});
    img.set(2, 1, {255, 0, 128});
    const std::string png = encode_png(img);
    REQUIRE(png.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n"));
    std::size_t at = 8;
    std::string idat;
    std::vector<std::string> types;
    while (at < png.size()) {
        const std::uint32_t len = be32(png, at);
        const std::string type = png.substr(at + 4, 4);
        const std::string body = png.substr(at + 4, 4 + len);
        const auto crc = ::crc32(0L, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()));
        CHECK(be32(png, at + 8 + len) == static_cast<std::uint32_t>(crc));
        if (type == "IDAT") idat += body.substr(4);
        if (type == "IHDR") {
            CHECK(be32(png, at + 8) == 7);
            CHECK(be32(png, at + 12) == 3);
        }
        types.push_back(type);
        at += 12 + len;
    }
    CHECK(at == png.size());
    REQUIRE(types == std::vector<std::string>{"IHDR", "IDAT", "IEND"});
    std::string raw(3 * (1 + 7 * 3), '\0');
    uLongf raw_size = static_cast<uLongf>(raw.size());
    REQUIRE(uncompress(reinterpret_cast<Bytef*>(raw.data()), &raw_size,
                       reinterpret_cast<const Bytef*>(idat.data()), static_cast<uLong>(idat.size())) == Z_OK);
    REQUIRE(raw_size == raw.size());
    // row 1, filter byte then pixel 2
    const std::size_t px = 1 * (1 + 21) + 1 + 2 * 3;
    CHECK(std::uint8_t(raw[1 * 22]) == 0);
    CHECK(std::uint8_t(raw[px]) == 255);
    CHECK(std::uint8_t(raw[px + 1]) == 0);
    CHECK(std::uint8_t(raw[px + 2]) == 128);
    CHECK(std::uint8_t(raw[1]) == 10);  // pixel (0,0)
}

TEST_CASE("raster: clipping, rectangles, text draws ink inside its box", "[validate][png]") {
    Image img(50, 20, {255, 255, 255});
    img.set(-1, 5, {0, 0, 0});  // ignored
    img.set(50, 5, {0, 0, 0});
    img.fill_rect(45, 15, 60, 30, {1, 2, 3});
    CHECK(img.get(49, 19).r == 1);
    CHECK(img.get(44, 19).r == 255);
    Image t(40, 20, {255, 255, 255});
    t.text(1, 1, "1E6", {0, 0, 0}, 2);
    int ink = 0, outside = 0;
    for (int y = 0; y < 20; ++y)
        for (int x = 0; x < 40; ++x)
            if (t.get(x, y).r == 0) {
                ++ink;
                if (x > 1 + Image::text_width("1E6") || y > 1 + Image::text_height()) ++outside;
            }
    CHECK(ink > 20);
    CHECK(outside == 0);
}

TEST_CASE("scatter plot puts a point where predicted == measured on the diagonal", "[validate][png]") {
    ScatterSpec spec;
    spec.title = "test";
    spec.series_names = {"a", "b"};
    spec.width_px = 400;
    spec.height_px = 400;
    // Range 1e2..1e4 exactly: axes box x 100..376, y 50..330 (see plot.cpp margins).
    const Image img = scatter_loglog(spec, {{100, 100, 1, true}, {1e4, 1e4, 1, true}, {1e3, 1e3, 1, true}});
    const Rgb c = series_colour(1);
    // 1e3 is the middle decade: x = 100 + 276/2 = 238, y = 330 - 280/2 = 190
    const Rgb at = img.get(238, 190);
    CHECK(at.r == c.r);
    CHECK(at.g == c.g);
    CHECK(at.b == c.b);
    CHECK(encode_png(img).size() > 100);
}
