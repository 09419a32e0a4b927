"""DDP's default communication hooks (PyTorch 1.13's default_hooks).

A hook gets (state, bucket) and returns a Future whose value is the
bucket's reduced flat tensor; `state` is the process group to use (None:
the default group)."""
import ctorch
import ctorch.distributed as dist


def _group(process_group):
    return process_group if process_group is not None else dist.group.WORLD


def _allreduce_fut(process_group, tensor):
    """Average `tensor` over the group in place; a Future of it."""
    group = _group(process_group)
    tensor.div_(group.size())
    return (dist.all_reduce(tensor, group=group, async_op=True)
            .get_future().then(lambda fut: fut.value()[0]))


def allreduce_hook(process_group, bucket):
    """All-reduce the bucket's gradients and divide by the world size (what
    DDP does without a hook)."""
    return _allreduce_fut(process_group, bucket.buffer())


def _compressed_allreduce(process_group, bucket, dtype):
    """All-reduce the bucket cast to `dtype` (fewer bytes on the wire), then
    write the result back into the bucket in its own dtype."""
    group = _group(process_group)
    compressed = bucket.buffer().to(dtype).div_(group.size())
    fut = dist.all_reduce(compressed, group=group, async_op=True).get_future()

    def decompress(fut):
        out = bucket.buffer()
        out.copy_(fut.value()[0])
        return out

    return fut.then(decompress)


def fp16_compress_hook(process_group, bucket):
    """All-reduce the bucket as float16 (half the bytes on the wire), then
    write the result back into the bucket in its own dtype."""
    return _compressed_allreduce(process_group, bucket, ctorch.float16)


def bf16_compress_hook(process_group, bucket):
    """fp16_compress_hook with bfloat16 (DDP accepts it only on CUDA 11+
    with NCCL 2.10+, as PyTorch's does)."""
    return _compressed_allreduce(process_group, bucket, ctorch.bfloat16)


def _compress_wrapper(hook, dtype, name):
    def wrapper(hook_state, bucket):
        buffer = bucket.buffer()
        bucket.set_buffer(buffer.to(dtype))
        fut = hook(hook_state, bucket)

        def decompress(fut):
            out = fut.value()
            if isinstance(out, (list, tuple)):
                out = out[0]
            buffer.copy_(out)
            return buffer

        return fut.then(decompress)

    wrapper.__name__ = name
    return wrapper


def fp16_compress_wrapper(hook):
    """Run `hook` on the bucket cast to float16, then cast the result back."""
    return _compress_wrapper(hook, ctorch.float16, "fp16_compress_wrapper_hook")


def bf16_compress_wrapper(hook):
    """Run `hook` on the bucket cast to bfloat16, then cast the result back."""
    return _compress_wrapper(hook, ctorch.bfloat16, "bf16_compress_wrapper_hook")
