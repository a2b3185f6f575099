#include "symbolite/version.h"

namespace symbolite {

const char* version() { return SYMBOLITE_VERSION_STRING; }

}  // namespace symbolite
