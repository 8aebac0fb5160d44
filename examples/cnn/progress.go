package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// progress prints Adam's progress: on a terminal one line rewritten in place (\r)
// after every step, with a bar over the whole run, the epoch, the running loss and
// accuracy of the epoch and the time left; elsewhere (a file, a pipe) one line per
// epoch.
type progress struct {
	w        io.Writer
	terminal bool
	epochs   int // in the run
	steps    int // in the run
	width    int // of the last line written in place
}

// step reports the step done (counted over the whole run) in epoch e, after elapsed
// time spent training.
func (p *progress) step(e, done int, loss, acc float64, elapsed time.Duration) {
	if !p.terminal {
		return
	}
	const barWidth = 24
	filled := barWidth * done / p.steps
	line := fmt.Sprintf("[%s%s] epoch %d/%d  loss %.4f  accuracy %6.2f%%  %s left",
		strings.Repeat("=", filled), strings.Repeat(" ", barWidth-filled), e+1, p.epochs, loss, 100*acc, eta(done, p.steps, elapsed))
	p.width = max(p.width, len(line))
	fmt.Fprintf(p.w, "\r%-*s", p.width, line)
}

// epoch reports the end of epoch e: on a terminal it ends the line (the last one in
// place), elsewhere it prints the epoch's line.
func (p *progress) epoch(e int, ep epoch, elapsed time.Duration) {
	line := fmt.Sprintf("epoch %*d/%d  loss %.4f  train accuracy %6.2f%%  test accuracy %6.2f%%  %v, %s left",
		len(fmt.Sprint(p.epochs)), e+1, p.epochs, ep.Loss, 100*ep.TrainAcc, 100*ep.TestAcc,
		elapsed.Round(10*time.Millisecond), eta(e+1, p.epochs, elapsed))
	if p.terminal {
		fmt.Fprintf(p.w, "\r%-*s\n", p.width, line)
		p.width = 0
		return
	}
	fmt.Fprintln(p.w, line)
}

// eta estimates the time left after done of total units took elapsed.
func eta(done, total int, elapsed time.Duration) string {
	if done == 0 {
		return "?"
	}
	left := time.Duration(float64(elapsed) * float64(total-done) / float64(done))
	return left.Round(100 * time.Millisecond).String()
}
