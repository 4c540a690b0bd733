#include "stax/ir/simplify.h"
