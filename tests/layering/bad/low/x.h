// A lower layer reaching up: the layering check must refuse this tree.
#include "symbolite/high/y.h"
