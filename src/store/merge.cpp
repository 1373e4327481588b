#include "store/merge.hpp"

#include <filesystem>

#include "core/error.hpp"
#include "store/store.hpp"

namespace kjudge {

merge_counts merge_stores(const std::string& out, const std::vector<std::string>& sources,
                          const std::function<void(const std::string&, const merge_counts&)>& on_source) {
  for (const auto& src : sources) {
    if (!store::is_postgres_url(src) && !std::filesystem::is_regular_file(src))
      throw usage_error(src + ": no such store file");
    if (src == out) throw usage_error(src + ": a store cannot be merged into itself");
  }
  store dest(out);
  merge_counts total;
  for (const auto& src : sources) {
    merge_counts counts;
    const store from(src);
    from.for_each_row([&](const stored_row& row) {
      ++counts.read;
      if (dest.add_row(row).inserted)
        ++counts.added;
      else
        ++counts.present;
    });
    if (on_source) on_source(src, counts);
    total.read += counts.read;
    total.added += counts.added;
    total.present += counts.present;
  }
  return total;
}

}  // namespace kjudge
