// Package race says whether the race detector is on: the module's one definition
// of that build tag, as the standard library's internal/race. Under the detector,
// internal/vmath's Put poisons the buffers it takes, so that a use after Put
// shows; core's tape leaves a sweep with an atomic store, which the detector
// sees, instead of a plain one; and the tests that count allocations or reuse
// buffers skip, since sync.Pool then drops a random quarter of what it is handed.
package race
