#include "stax/ir/program.h"
