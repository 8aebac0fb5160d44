package hvp

// spawn starts f on a goroutine of its own: the workers of an Objective's shards
// and of an Operator's batches. The callers never wait for a worker that has not
// started, only for the work it has taken, so tests replace spawn to start the
// workers late (as on a core busy with another process) or early.
var spawn = func(f func()) { go f() }
