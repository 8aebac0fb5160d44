package core

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// WriteDOT writes the recorded graph in Graphviz's DOT language, for `dot -Tsvg`.
// Each node is labelled with its NodeID, its op name and its value's dtype and shape
// (Space.Describe); an edge runs from each input to the op that reads it, labelled
// with the input's position when the op has more than one; each output of a
// multi-output op is a node of its own, labelled "name[m of k]", with the op's input
// edges. Leaves are filled, constants and detached nodes (recorded without
// gradient) are dashed, and so are the input edges of detached nodes (no gradient
// flows along them); nodes with hooks have a double border, and nodes recorded in
// anomaly mode carry their recording site as a tooltip (the dir/file:line of the
// program's call, outside this module, as in anomaly reports). It returns the
// writer's error, or an error wrapping chainrules.ErrGraphFreed after Free.
func (t *Tape[V]) WriteDOT(w io.Writer) error {
	if t.freed {
		return cr.ErrGraphFreed
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "digraph tape {\n\tnode [shape=box, fontname=\"monospace\"];\n")
	det := t.detached
	for i := range t.n {
		nd := t.at(i)
		name := t.opNames[nd.name]
		rule := t.ruleOf(i)
		if end := t.groupEnd(i); t.groupLen(end) > 1 {
			k := t.groupLen(end)
			name = fmt.Sprintf("%s[%d of %d]", name, k-1-(end-i), k)
		}
		label := fmt.Sprintf("%%%d %s\n%s", i, name, t.space.Describe(nd.value))
		var attrs []string
		switch {
		case nd.flags&flagLeaf != 0:
			attrs = append(attrs, `style=filled`, `fillcolor="#cfe2f3"`)
		case rule == nil:
			attrs = append(attrs, `style=dashed`)
		}
		if nd.flags&flagHook != 0 {
			attrs = append(attrs, `peripheries=2`)
		}
		if i < len(t.sites) && t.sites[i] != 0 {
			attrs = append(attrs, "tooltip="+dotQuote(formatPC(t.sites[i])))
		}
		fmt.Fprintf(bw, "\tn%d [label=%s", i, dotQuote(label))
		for _, a := range attrs {
			bw.WriteString(", " + a)
		}
		bw.WriteString("];\n")
		var ins []cr.NodeID
		style := ""
		switch {
		case rule != nil:
			ins = rule.Inputs()
		case len(det) > 0 && det[0].i == i:
			ins, style = det[0].in, "style=dashed"
			det = det[1:]
		}
		for k, in := range ins {
			var attrs []string
			if len(ins) > 1 {
				attrs = append(attrs, fmt.Sprintf("label=\"%d\"", k))
			}
			if style != "" {
				attrs = append(attrs, style)
			}
			if len(attrs) > 0 {
				fmt.Fprintf(bw, "\tn%d -> n%d [%s];\n", in.Index(), i, strings.Join(attrs, ", "))
			} else {
				fmt.Fprintf(bw, "\tn%d -> n%d;\n", in.Index(), i)
			}
		}
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// dotQuote returns s as a DOT string literal.
func dotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
