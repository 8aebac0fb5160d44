//go:build !unix

package main

import "time"

// cpuTime is unknown here: 0, and the program prints no processor time.
func cpuTime() time.Duration { return 0 }
