// std::unordered_map<std::string, double> differentiated through its values: hashing and
// std::string members are inactive (Enzyme's ReverseMode/map.cpp).
#include <string>
#include <unordered_map>
#include "enzyme_test.h"

template <typename T> extern void __enzyme_autodiff(void *, int, T &, T &);

void square(std::unordered_map<std::string, double> &m) {
  m["x"] = m["x"] * m["x"] + 2.0 * m["y"];
}

int main() {
  std::unordered_map<std::string, double> m, dm;
  m["x"] = 3.0;
  m["y"] = 5.0;
  dm["x"] = 1.0;
  dm["y"] = 0.0;
  __enzyme_autodiff((void *)square, enzyme_dup, m, dm);
  check_close("d x", dm["x"], 6.0, 1e-12, 0);
  check_close("d y", dm["y"], 2.0, 1e-12, 0);
  return test_exit();
}
