/* The paged_attention example's fixed argument layout, shared by its
 * orchestration, kernels, golden, the tests and the CLI.
 *
 * Tensors (dense):
 *   query       [B, H, D]    float32 IN
 *   key_cache   [NB, BS, D]  float32 IN   one KV head shared by all heads
 *   value_cache [NB, BS, D]  float32 IN
 *   block_table [B, MB]      int32   IN   physical block of logical block j
 *   out         [B, H, D]    float32 OUT
 * Scalars (always PA_SCALAR_COUNT of them): 0 = softmax scale (float32
 * bits in the low 32 bits), 1 + b = context length of batch b (1..MB*BS
 * tokens) for b < B, and 0 for the unused slots b >= B.
 *
 * The orchestration never reads block_table: each task gets a one-element
 * view of its entry and the kernels look the block up on the device. */
#ifndef SIMPLER_EXAMPLE_PAGED_ATTENTION_LAYOUT_H
#define SIMPLER_EXAMPLE_PAGED_ATTENTION_LAYOUT_H

#define PA_ARG_QUERY 0
#define PA_ARG_KEY_CACHE 1
#define PA_ARG_VALUE_CACHE 2
#define PA_ARG_BLOCK_TABLE 3
#define PA_ARG_OUT 4
#define PA_TENSOR_COUNT 5
#define PA_SCALAR_SCALE 0
#define PA_SCALAR_CONTEXT_LEN 1 /* + batch index */

/* Bounds of one call; a softmax row (BS scores) lives on the kernel's
 * stack, and the case descriptor has room for 1 + PA_MAX_BATCH scalars. */
#define PA_MAX_BATCH 7u
#define PA_SCALAR_COUNT (1 + PA_MAX_BATCH)
#define PA_MAX_HEADS 64u
#define PA_MAX_HEAD_DIM 128u
#define PA_MAX_BLOCK_SIZE 128u
#define PA_MAX_BLOCKS_PER_SEQ 64u

/* Kernels: per logical KV block j of batch b,
 *   QK (AIC): s = scale * q_b . K[table[b][j]]^T            [H, BS]
 *   SF (AIV): online max/sum update of m_b, l_b; p = exp(s - m_new),
 *             alpha = exp(m_old - m_new)
 *   PV (AIC): o_b = alpha * o_b + p . V[table[b][j]]
 * then FN (AIV): out_b = o_b / l_b. */
#define PA_FUNC_QK 0
#define PA_FUNC_SF 1
#define PA_FUNC_PV 2
#define PA_FUNC_FN 3

#endif
