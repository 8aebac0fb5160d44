package core_test

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

func TestWriteDOT(t *testing.T) {
	tp := newTape()
	x, c := tp.Leaf(0.5), tp.Constant(2)
	s := tp.Apply(sinOp, x)
	y := tp.Apply(mulOp, s, c)
	var d cr.NodeID
	tp.NoGrad(func() { d = tp.Apply(cubeOp, y) })
	require.NoError(t, tp.AddHook(s, clip(1)))
	require.NoError(t, tp.Err())
	_ = d

	var buf bytes.Buffer
	require.NoError(t, tp.WriteDOT(&buf))
	out := buf.String()
	for _, want := range []string{
		"digraph tape {",
		`n0 [label="%0 leaf\nfloat64[]", style=filled`,
		`n1 [label="%1 constant\nfloat64[]", style=dashed];`,
		`n2 [label="%2 sin\nfloat64[]", peripheries=2];`,
		"n0 -> n2;",
		`n3 [label="%3 mul\nfloat64[]"];`,
		`n2 -> n3 [label="0"];`,
		`n1 -> n3 [label="1"];`,
		`n4 [label="%4 cube\nfloat64[]", style=dashed];`,
		"n3 -> n4 [style=dashed];",
	} {
		assert.Contains(t, out, want)
	}
	assert.Equal(t, 4, strings.Count(out, "->"), "the detached node keeps its input edge")

	if path, err := exec.LookPath("dot"); err != nil {
		t.Log("Graphviz dot is not installed: not rendering")
	} else {
		cmd := exec.Command(path, "-Tsvg")
		cmd.Stdin = &buf
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		svg, err := cmd.Output()
		require.NoError(t, err, "dot: %s", stderr.String())
		assert.Empty(t, stderr.String())
		assert.Contains(t, string(svg), "<svg")
		assert.Equal(t, 5, strings.Count(string(svg), `class="node"`))
		assert.Equal(t, 4, strings.Count(string(svg), `class="edge"`))
	}

	tp.Free()
	assert.ErrorIs(t, tp.WriteDOT(&buf), cr.ErrGraphFreed)
}

func TestWriteDOTAnomalySites(t *testing.T) {
	tp := anomalyTape(t)
	_, site := tp.Leaf(1), here()
	var buf bytes.Buffer
	require.NoError(t, tp.WriteDOT(&buf))
	assert.Contains(t, buf.String(), `tooltip="`+site+`"`)
}
