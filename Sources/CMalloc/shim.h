// CMalloc: glibc's mallopt(3) and its parameters, which Swift's Glibc module leaves out (<malloc.h>). Imported by
// CLISupport to set the allocator up for a short-lived command (MallocTuning). No library to link: it is in glibc.
#pragma once
#include <malloc.h>
