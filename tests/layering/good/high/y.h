// A higher layer using a lower one: allowed.
#include "symbolite/low/x.h"
