#include "stax/lowering/lower.h"
