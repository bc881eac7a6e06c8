// One factory per check; each is defined in its own file under analyzer/checks/
// and listed once in analyzer/checks/check_list.def.
#pragma once

#include "analyzer/check.h"

#include <memory>

namespace kaudit::analyzer {

#define KAUDIT_CHECK(name) std::unique_ptr<Check> make_##name##_check();
#include "analyzer/checks/check_list.def"
#undef KAUDIT_CHECK

}  // namespace kaudit::analyzer
