package hvp

// SetSpawn replaces how an Objective and an Operator's batches start their worker
// goroutines, for tests that start them late or early, and returns the function
// that restores the default. Tests that set it must not run in parallel.
func SetSpawn(f func(func())) (restore func()) {
	old := spawn
	spawn = f
	return func() { spawn = old }
}
