// SHA-256 (OpenSSL EVP) for content-addressed build caching and candidate identity.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace kjudge {

std::string sha256_hex(std::string_view data);
// Reads the whole file; throws usage_error naming the path if it cannot be read.
std::string read_file(const std::filesystem::path& p);

}  // namespace kjudge
