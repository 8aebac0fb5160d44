package sumhint

import (
	"testing"
	"unsafe"
)

// A hint is taken once, for the same tensor and storage only; a write that
// overlaps its storage drops it, one elsewhere does not; the oldest of more than
// slots hints is overwritten.
func TestHints(t *testing.T) {
	a, b := make([]float64, 10), make([]float64, 10)
	ta, tb := &struct{ int }{1}, &struct{ int }{2}
	Set(ta, &a[0], len(a), 3.5)
	if _, ok := Take(tb, &a[0], len(a)); ok {
		t.Fatal("taken for another tensor")
	}
	if _, ok := Take(ta, &a[1], len(a)-1); ok {
		t.Fatal("taken for other storage")
	}
	if s, ok := Take(ta, &a[0], len(a)); !ok || s != 3.5 {
		t.Fatalf("Take = %v, %v; want 3.5, true", s, ok)
	}
	if _, ok := Take(ta, &a[0], len(a)); ok {
		t.Fatal("taken twice")
	}

	Set(ta, &a[0], len(a), 1)
	Set(tb, &b[0], len(b), 2)
	Drop(unsafe.Pointer(&a[9]), 8) // the last element of a
	if _, ok := Take(ta, &a[0], len(a)); ok {
		t.Fatal("a's hint survived a write into a")
	}
	if s, ok := Take(tb, &b[0], len(b)); !ok || s != 2 {
		t.Fatalf("b's hint: %v, %v; want 2, true", s, ok)
	}
	if n := active.Load(); n != 0 {
		t.Fatalf("%d slots in use, want 0", n)
	}

	ts := make([]*struct{ int }, slots+1)
	for i := range ts {
		ts[i] = &struct{ int }{i}
		Set(ts[i], &a[0], len(a), float64(i))
	}
	if _, ok := Take(ts[0], &a[0], len(a)); ok {
		t.Fatal("the oldest hint was not overwritten")
	}
	for i := 1; i <= slots; i++ {
		if s, ok := Take(ts[i], &a[0], len(a)); !ok || s != float64(i) {
			t.Fatalf("hint %d: %v, %v", i, s, ok)
		}
	}
	if n := active.Load(); n != 0 {
		t.Fatalf("%d slots in use, want 0", n)
	}
}

// Reset forgets every hint.
func TestReset(t *testing.T) {
	a := make([]float64, 4)
	ta := &struct{ int }{1}
	Set(ta, &a[0], len(a), 1)
	Reset()
	if _, ok := Take(ta, &a[0], len(a)); ok || active.Load() != 0 {
		t.Fatal("a hint survived Reset")
	}
}
