package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"time"
)

// message is one line from the eval. Only the fields the tool reads are kept;
// input stays raw until the function that reads it is known.
type message struct {
	ID       *json.RawMessage `json:"id"`
	Kind     string           `json:"kind"`
	Module   string           `json:"module"`
	Function string           `json:"function"`
	Input    json.RawMessage  `json:"input"`
}

type timing struct {
	Name        string `json:"name"`
	Nanoseconds int64  `json:"nanoseconds"`
}

// response is the tool's answer. Success is a pointer so that the answers to
// "start" and "analysis" carry only the id (and, for start, the tool name).
type response struct {
	ID      json.RawMessage `json:"id"`
	Tool    string          `json:"tool,omitempty"`
	Success *bool           `json:"success,omitempty"`
	Output  any             `json:"output,omitempty"`
	Timings []timing        `json:"timings,omitempty"`
	Error   string          `json:"error,omitempty"`
}

// runs are the repetition fields of most evals' inputs: evaluate at least
// MinRuns times and until the runs add up to MinSeconds.
type runs struct {
	MinRuns    int     `json:"min_runs"`
	MinSeconds float64 `json:"min_seconds"`
}

// job is a function of an eval bound to a parsed input: run computes the
// output once; it is timed on its own, without the JSON decoding and encoding.
type job struct {
	runs runs
	run  func() (any, error)
}

// prepare parses an eval's input and returns the job that evaluates one of its
// functions there; a malformed input or one of inconsistent sizes is an error.
type prepare func(input json.RawMessage) (job, error)

// modules maps each supported eval to its functions.
var modules = map[string]map[string]prepare{}

// serve answers every message read from r on w, one line each, until r ends.
// A message that cannot be understood, an unknown module or function, or a
// function that fails gets "success": false and an error; serve itself fails
// only when r or w does.
func serve(r io.Reader, w *bufio.Writer) error {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			resp := answer(line)
			b, merr := json.Marshal(resp)
			if merr != nil {
				// An output JSON cannot hold (NaN or an infinity).
				b, merr = json.Marshal(failure(resp.ID, fmt.Errorf("the output cannot be sent: %w", merr)))
				if merr != nil {
					return merr
				}
			}
			if _, werr := w.Write(append(b, '\n')); werr != nil {
				return werr
			}
			if werr := w.Flush(); werr != nil {
				return werr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

var null = json.RawMessage("null")

// answer computes the response to one line.
func answer(line []byte) response {
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		return failure(null, fmt.Errorf("malformed message: %w", err))
	}
	if m.ID == nil {
		return failure(null, errors.New("message without an id"))
	}
	id := *m.ID
	switch m.Kind {
	case "start":
		return response{ID: id, Tool: "chainrules"}
	case "define":
		if _, ok := modules[m.Module]; !ok {
			return failure(id, fmt.Errorf("unknown module %q", m.Module))
		}
		ok := true
		return response{ID: id, Success: &ok}
	case "evaluate":
		return evaluate(id, m)
	case "":
		return failure(id, errors.New("message without a kind"))
	default:
		// "analysis", "end" and any later kind: acknowledge.
		return response{ID: id}
	}
}

func failure(id json.RawMessage, err error) response {
	ok := false
	return response{ID: id, Success: &ok, Error: err.Error()}
}

// evaluate parses the input of m, runs its function as often as the input asks
// and returns the last output with one "evaluate" timing a run. A panic in an
// evaluation is reported as a failure: the tool goes on with the next message.
func evaluate(id json.RawMessage, m message) (resp response) {
	defer func() {
		if p := recover(); p != nil {
			resp = failure(id, fmt.Errorf("%s.%s panicked: %v\n%s", m.Module, m.Function, p, debug.Stack()))
		}
	}()
	fns, ok := modules[m.Module]
	if !ok {
		return failure(id, fmt.Errorf("unknown module %q", m.Module))
	}
	prep, ok := fns[m.Function]
	if !ok {
		return failure(id, fmt.Errorf("module %s has no function %q", m.Module, m.Function))
	}
	if len(m.Input) == 0 {
		return failure(id, fmt.Errorf("%s.%s: message without an input", m.Module, m.Function))
	}
	j, err := prep(m.Input)
	if err != nil {
		return failure(id, fmt.Errorf("%s.%s: bad input: %w", m.Module, m.Function, err))
	}
	var out any
	var timings []timing
	var elapsed time.Duration
	minRuns := max(j.runs.MinRuns, 1)
	minTime := time.Duration(j.runs.MinSeconds * float64(time.Second))
	for len(timings) < minRuns || elapsed < minTime {
		start := time.Now()
		out, err = j.run()
		d := time.Since(start)
		if err != nil {
			return failure(id, fmt.Errorf("%s.%s: %w", m.Module, m.Function, err))
		}
		timings = append(timings, timing{Name: "evaluate", Nanoseconds: d.Nanoseconds()})
		elapsed += d
	}
	ok = true
	return response{ID: id, Success: &ok, Output: out, Timings: timings}
}

// decode unmarshals an input into the eval's input type; a field of the wrong
// JSON type is an error. Fields the tool does not read are ignored.
func decode(input json.RawMessage, v any) error {
	return json.Unmarshal(input, v)
}
