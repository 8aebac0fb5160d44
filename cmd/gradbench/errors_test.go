package main

// shapeErrors are inputs of the wrong shape, one or more per eval: each must be
// refused with an error.
var shapeErrors = []struct{ name, line string }{}
