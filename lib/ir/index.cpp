#include "stax/ir/index.h"
