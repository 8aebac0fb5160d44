package nn

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/tensor"
)

// EmbeddingOp returns PyTorch's F.embedding(input, weight) for the 1-D input of
// token indices: the rows of the table weight [num_embeddings, embedding_dim] at
// indices, in order,
//
//	y[j, :] = weight[indices[j], :],    y of shape [len(indices), embedding_dim],
//
// (reshape y with permute.ReshapeOp for a batch of sequences [B, T, dim]). It is
// index.IndexSelectOp(0, indices...), under which it is recorded and registered
// ("index_select"): the pullback adds each row of ybar into the row it was read
// from (repeated indices accumulate), and it is row-sparse
// (chainrules.RowPullbackRule), so a table read only through lookups gets its
// gradient as the rows it touched (core.Gradients.Rows), in memory proportional
// to them rather than to the table. Negative indices count from the end; an
// index out of range is an error wrapping chainrules.ErrInvalidArgument.
// PyTorch's padding_idx, max_norm and sparse options are not offered.
func EmbeddingOp(indices ...int) cr.Op[*tensor.Dense] { return index.IndexSelectOp(0, indices...) }

// Embedding evaluates EmbeddingOp without a tape.
func Embedding(weight *tensor.Dense, indices ...int) (*tensor.Dense, error) {
	return cr.Eval(EmbeddingOp(indices...), weight)
}
