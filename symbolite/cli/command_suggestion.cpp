#include "symbolite/cli/command_suggestion.h"

#include <algorithm>

namespace symbolite::cli {
namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string closest_command(std::string_view typed, const std::vector<std::string>& known) {
  std::string best;
  std::size_t best_distance = 0;
  for (const auto& name : known) {
    std::size_t d = edit_distance(typed, name);
    if (best.empty() || d < best_distance) {
      best = name;
      best_distance = d;
    }
  }
  // A typo changes a few letters; beyond a third of the word it is another word.
  return best_distance <= std::max<std::size_t>(2, typed.size() / 3) ? best : std::string();
}

}  // namespace symbolite::cli
