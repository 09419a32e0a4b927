/* tests/c/test_list.h -- every C test, written once (libuv's test list).
 *
 * CT_TEST_LIST(X) expands X(name) per test; test_<name> is defined with
 * TEST_IMPL(name) in the test_*.c file named in the comment.  The runner
 * builds its table from this list and this header declares the
 * prototypes, so adding a test is one line here plus its body.
 */
#ifndef CT_TESTS_C_TEST_LIST_H
#define CT_TESTS_C_TEST_LIST_H

#define CT_TEST_LIST(TEST_ENTRY)                                              \
    /* test_dtype.c */                                                        \
    TEST_ENTRY(dtype_traits)                                                  \
    TEST_ENTRY(dtype_promote_table)                                           \
    TEST_ENTRY(dtype_can_cast)                                                \
    TEST_ENTRY(half_conversions)                                              \
    TEST_ENTRY(half_round_trip_all)                                           \
    TEST_ENTRY(bfloat16_conversions)                                          \
    /* test_factory.c */                                                      \
    TEST_ENTRY(factory_empty)                                                 \
    TEST_ENTRY(factory_full_zeros_ones)                                       \
    TEST_ENTRY(factory_many_dims)                                             \
    TEST_ENTRY(factory_arange)                                                \
    TEST_ENTRY(factory_arange_errors)                                         \
    TEST_ENTRY(factory_linspace)                                              \
    TEST_ENTRY(factory_range_logspace_eye)                                    \
    /* test_views.c */                                                        \
    TEST_ENTRY(view_infer)                                                    \
    TEST_ENTRY(view_errors)                                                   \
    TEST_ENTRY(view_reshape)                                                  \
    TEST_ENTRY(view_narrow_select_slice)                                      \
    TEST_ENTRY(view_expand)                                                   \
    TEST_ENTRY(view_permute_transpose)                                        \
    TEST_ENTRY(view_squeeze_unsqueeze)                                        \
    TEST_ENTRY(view_shares_storage)                                           \
    TEST_ENTRY(view_broadcast_shapes)                                         \
    /* test_binary.c */                                                       \
    TEST_ENTRY(binary_broadcast)                                              \
    TEST_ENTRY(binary_alpha_and_div)                                          \
    TEST_ENTRY(binary_promotion)                                              \
    TEST_ENTRY(binary_bool_and_overflow)                                      \
    TEST_ENTRY(binary_noncontiguous)                                          \
    TEST_ENTRY(binary_large_threaded)                                         \
    /* test_binary_out.c */                                                   \
    TEST_ENTRY(binary_inplace)                                                \
    TEST_ENTRY(binary_out_resize)                                             \
    /* test_copy.c */                                                         \
    TEST_ENTRY(copy_all_dtype_pairs)                                          \
    TEST_ENTRY(copy_float_to_int)                                             \
    TEST_ENTRY(copy_special_values)                                           \
    TEST_ENTRY(copy_broadcast_and_errors)                                     \
    TEST_ENTRY(copy_to_dtype_contiguous_clone)                                \
    TEST_ENTRY(copy_fill)                                                     \
    TEST_ENTRY(copy_large_threaded)                                           \
    /* test_quantize.c */                                                     \
    TEST_ENTRY(quantize_round_trip)                                           \
    TEST_ENTRY(quantize_rounding_and_clamp)                                   \
    TEST_ENTRY(quantize_errors)                                               \
    /* test_errors.c */                                                       \
    TEST_ENTRY(error_state)                                                   \
    TEST_ENTRY(error_thread_local)                                            \
    TEST_ENTRY(error_warnings)                                                \
    TEST_ENTRY(error_from_ops)                                                \
    TEST_ENTRY(error_device_parse)                                            \
    /* test_allocator.c */                                                    \
    TEST_ENTRY(allocator_live_bytes)                                          \
    TEST_ENTRY(allocator_cache)                                               \
    TEST_ENTRY(allocator_external_storage)                                    \
    TEST_ENTRY(allocator_resize)                                              \
    /* test_cuda.c */                                                         \
    TEST_ENTRY(cuda_without_gpu)                                              \
    TEST_ENTRY(cuda_part_without_driver)                                      \
    /* test_device_cache.c */                                                 \
    TEST_ENTRY(device_cache_small_blocks)                                     \
    TEST_ENTRY(device_cache_large_blocks)                                     \
    TEST_ENTRY(device_cache_record_stream)                                    \
    TEST_ENTRY(device_cache_out_of_memory)                                    \
    TEST_ENTRY(device_cache_churn)                                            \
    /* test_cuda_kernel_math.c */                                             \
    TEST_ENTRY(cuda_kernel_offsets)                                           \
    TEST_ENTRY(cuda_kernel_half_bits)                                         \
    TEST_ENTRY(cuda_kernel_casts)                                             \
    TEST_ENTRY(cuda_kernel_binary)                                            \
    TEST_ENTRY(cuda_kernel_fill_values)                                       \
    TEST_ENTRY(cuda_kernel_binary_ops)                                        \
    TEST_ENTRY(cuda_kernel_unary_ops)                                         \
    TEST_ENTRY(cuda_kernel_reduce)                                            \
    TEST_ENTRY(cuda_kernel_supports)                                          \
    TEST_ENTRY(cuda_philox_known_answers)                                     \
    TEST_ENTRY(cuda_random_matches_pytorch)                                   \
    TEST_ENTRY(cuda_random_integers)                                          \
    TEST_ENTRY(cuda_random_transforms)                                        \
    TEST_ENTRY(cuda_poisson_law)                                              \
    /* test_linalg.c */                                                       \
    TEST_ENTRY(linalg_mm)                                                     \
    TEST_ENTRY(linalg_matmul_ranks)                                           \
    TEST_ENTRY(linalg_errors)                                                 \
    TEST_ENTRY(linalg_add_products)                                           \
    TEST_ENTRY(linalg_tri_diag_trace)                                         \
    TEST_ENTRY(linalg_einsum)                                                 \
    TEST_ENTRY(linalg_svdvals_norms)                                          \
    /* test_reduce.c */                                                       \
    TEST_ENTRY(reduce_sum_mean_dims)                                          \
    TEST_ENTRY(reduce_dtypes_and_empty)                                       \
    TEST_ENTRY(reduce_max_min_nan)                                            \
    TEST_ENTRY(reduce_var_norm)                                               \
    TEST_ENTRY(reduce_scans)                                                  \
    TEST_ENTRY(reduce_large_threaded)                                         \
    TEST_ENTRY(reduce_errors)                                                 \
    /* test_random.c */                                                       \
    TEST_ENTRY(random_engine_and_seeds)                                       \
    TEST_ENTRY(random_state_bytes)                                            \
    TEST_ENTRY(random_uniform_and_normal)                                     \
    TEST_ENTRY(random_integers)                                               \
    TEST_ENTRY(random_distributions)                                          \
    TEST_ENTRY(random_default_generator)                                      \
    /* test_shape.c */                                                        \
    TEST_ENTRY(shape_split_views)                                             \
    TEST_ENTRY(shape_movedim_diagonal)                                        \
    TEST_ENTRY(shape_cat_stack)                                               \
    TEST_ENTRY(shape_cat_errors)                                              \
    TEST_ENTRY(shape_repeat_interleave)                                       \
    TEST_ENTRY(shape_flip_roll_rot90)                                         \
    TEST_ENTRY(shape_axis_split_atleast)                                      \
    /* test_sort.c */                                                         \
    TEST_ENTRY(sort_stable_nan)                                               \
    TEST_ENTRY(sort_dims_and_topk)                                            \
    TEST_ENTRY(sort_kthvalue)                                                 \
    TEST_ENTRY(sort_unique)                                                   \
    TEST_ENTRY(sort_search_and_count)                                         \
    TEST_ENTRY(sort_errors)                                                   \
    /* test_pointwise_ternary.c */                                            \
    TEST_ENTRY(ternary_values)                                                \
    TEST_ENTRY(ternary_modes_and_errors)                                      \
    /* test_store.c */                                                        \
    TEST_ENTRY(store_hash)                                                    \
    TEST_ENTRY(store_prefix)                                                  \
    TEST_ENTRY(store_file)                                                    \
    TEST_ENTRY(store_tcp)                                                     \
    /* test_yield_rule.c */                                                   \
    TEST_ENTRY(yield_rule)

#define TEST_DECLARE(name) void test_##name(void);
CT_TEST_LIST(TEST_DECLARE)
#undef TEST_DECLARE

#endif
