"""A recognition service that answers at once, as a process of its own: for each request it
writes a small valid trial balance (the contract's example) as the job's result file to real
storage, then publishes the ack and the ``done`` envelope. Run by ``bench.full_path``:

    python -m bench._stub NATS_URL STORAGE_URL BUCKET REQUEST_SUBJECT RESULT_SUBJECT
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys

import nats

from arm_ka_platform.settings import StorageConfig
from arm_ka_platform.storage import open_storage
from recognition_contract import (
    NATS_MSG_ID,
    ResultEnvelope,
    S3Ref,
    ServiceInfo,
    Status,
    ack_msg_id,
    contracts_dir,
    dump_envelope,
    parse_request,
    result_key,
    result_msg_id,
)

EXAMPLE = "result-2.0-done-osv-general.json"
READY = "stub-ready"


async def serve(nats_url: str, storage_url: str, bucket: str, requests: str, results: str) -> None:
    storage = open_storage(
        StorageConfig(
            url=storage_url,
            bucket=bucket,
            s3_endpoint_url=None,
            s3_region="us-east-1",
            access_key_id=None,
            secret_access_key=None,
        )
    )
    template = json.loads((contracts_dir() / "examples" / EXAMPLE).read_text())
    service = ServiceInfo(name="tabular-parser", version="bench")
    nc = await nats.connect(nats_url)

    async def answer(msg: nats.aio.msg.Msg) -> None:
        request = parse_request(msg.data)
        job, file, attempt = request.job_id, request.file_id, request.attempt
        ack = ResultEnvelope(job_id=job, file_id=file, status=Status.PROCESSING, service=service)
        await nc.publish(
            results, dump_envelope(ack), headers={NATS_MSG_ID: ack_msg_id(job, attempt)}
        )
        body = json.dumps({**template, "job_id": str(job), "file_id": str(file)}).encode()
        key = result_key(file, job)
        await storage.put(key, body)
        done = ResultEnvelope(
            job_id=job,
            file_id=file,
            status=Status.DONE,
            service=service,
            result_s3=S3Ref(bucket=bucket, key=key),
            result_schema_version=template["schema_version"],
        )
        await nc.publish(
            results, dump_envelope(done), headers={NATS_MSG_ID: result_msg_id(job, attempt)}
        )

    # Answers run as tasks: the storage write of one request must not hold up the next.
    pending: set[asyncio.Task[None]] = set()

    async def on_request(msg: nats.aio.msg.Msg) -> None:
        task = asyncio.create_task(answer(msg))
        pending.add(task)
        task.add_done_callback(pending.discard)

    await nc.subscribe(requests, queue="tabular-parser", cb=on_request)
    await nc.flush()
    print(READY, flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await nc.drain()


if __name__ == "__main__":
    asyncio.run(serve(*sys.argv[1:6]))
