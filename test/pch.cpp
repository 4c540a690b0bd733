// The owner of the tests' precompiled header (test/CMakeLists.txt: stax_test_pch); nothing of its
// own.
