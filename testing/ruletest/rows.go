package ruletest

import cr "github.com/chainrules-go/chainrules/chainrules"

// checkRows checks r when it is a chainrules.RowPullbackRule: for a random
// cotangent, its dense terms plus its row-sparse terms (each checked with the
// Space's CheckRows and added into zeros with AddRows) must equal Pullback's
// cotangents, input by input.
func (c *checker[V]) checkRows(r anyRule[V]) {
	rr, ok := r.r.(cr.RowPullbackRule[V])
	if !ok {
		c.skip(CheckRows, "", "the rule does not implement chainrules.RowPullbackRule")
		return
	}
	rs, ok := c.space.(cr.RowSpace[V])
	if !ok {
		c.failf(CheckRows, "", "the rule implements chainrules.RowPullbackRule but the Space %T is not a chainrules.RowSpace", c.space)
		return
	}
	c.sel = selection{on: []bool{true}}
	ybar := c.unitOut()
	want, err := c.pullbackOf(r, ybar)
	if err != nil {
		c.fail(CheckRows, "", "Pullback failed", err)
		return
	}
	var (
		cs   []cr.Contribution[V]
		rows []cr.RowContribution[V]
	)
	err = protect(func() error {
		var e error
		cs, rows, e = rr.RowPullback([]V{c.space.Clone(ybar[0])}, []bool{true}, nil, nil)
		return e
	})
	if err != nil {
		c.fail(CheckRows, "", "RowPullback failed", err)
		return
	}
	got, err := c.collect(cs)
	if err != nil {
		c.fail(CheckRows, "", "RowPullback's dense terms", err)
		return
	}
	for _, t := range rows {
		k := c.index(t.Node)
		if k < 0 {
			c.failf(CheckRows, "", "RowPullback returned rows for %v, which is not an input", t.Node)
			return
		}
		if err := rs.CheckRows(c.inputs[k], t.Rows, t.Value); err != nil {
			c.fail(CheckRows, c.label(k), "RowPullback's row term does not fit the input", err)
			return
		}
		if got[k], err = rs.AddRows(got[k], t.Rows, t.Value); err != nil {
			c.fail(CheckRows, c.label(k), "AddRows failed", err)
			return
		}
	}
	if f := c.compareInputs(got, want, "RowPullback's terms, added up, differ from Pullback's cotangent; "); f != nil {
		c.add(CheckRows, "", f)
		return
	}
	c.pass(CheckRows, "")
}
