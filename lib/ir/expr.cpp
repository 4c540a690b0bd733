#include "stax/ir/expr.h"
