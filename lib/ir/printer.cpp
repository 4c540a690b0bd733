#include "stax/ir/printer.h"
