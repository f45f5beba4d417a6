// CZBar: the C headers Airlock uses, imported by exactly one Swift module (STYLE.md R2).
#pragma once
#include <zbar.h>
