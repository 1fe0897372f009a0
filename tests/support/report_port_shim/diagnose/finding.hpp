#pragma once
// Build shim for linkscope_telemetry_tests only, until the report port lands: report/report_format.hpp still includes
// this pre-typed-Run header, and the timeline test compiles report/svg_canvas.cpp and report/report_format.cpp.
// diagnose::Severity is model::Severity in the typed Run. Delete this folder (and its include line in
// tests/CMakeLists.txt) when report_format.hpp no longer names it.
#include "diagnose/diagnose.hpp"
