#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace docgate {

// How the databases store a vector (kh_embedding.vector): each float as its IEEE 754 binary32 bits
// in little-endian order, whatever the machine's byte order.
std::string VectorToBytes(const std::vector<float>& vector);
// The vector of `dimensions` floats in `bytes`; nullopt when `bytes` is not 4 * dimensions long.
std::optional<std::vector<float>> VectorFromBytes(std::string_view bytes, int dimensions);

}  // namespace docgate
