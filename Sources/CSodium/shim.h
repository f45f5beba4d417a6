// CSodium: the C headers Airlock uses, imported by exactly one Swift module (docs/architecture.md rule R2).
#pragma once
#include <sodium.h>
