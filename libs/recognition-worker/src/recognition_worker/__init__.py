"""What every stateless recognition service shares.

A service supplies a ``Recognizer``: its name (the queue group and ``service.name``), version,
pipeline (which request subject), the file types it reads, and a pure picklable function
``recognize(file_type, source, original_name) -> Recognition`` that raises
``RecognitionError(code, message)`` for a file it cannot recognise. ``Worker(settings,
recognizer)`` does the rest:

* subscribes to ``OPENBAO__NATS__NATS_{TABULAR|IMAGE}_REQUEST_SUBJECT`` in the queue group;
* acks every request (``processing``, ``Nats-Msg-Id = ack:<job_id>:<attempt>``) before it
  touches storage; off-contract requests get ``SCHEMA_MISMATCH`` where their ids can be read;
* answers a repeated request from memory (``JobLedger``): ack again, the same outcome again;
* does not start a request past its ``reply_deadline`` (one ``TIMEOUT`` envelope instead);
* reads the source (``max_source_bytes``), runs ``recognize`` in a sandboxed child process
  (``job_timeout_seconds``, ``job_memory_bytes`` as RLIMIT_AS; at most ``worker_concurrency``
  at once), writes ``results/{file_id}/{job_id}/result.json`` (validated by the schema of
  ``CONTRACT_VERSION``; the ``Recognition.raw`` files go first, under
  ``raw/{file_id}/{job_id}/``, named by the envelope's ``raw_s3_key``), then publishes
  ``done`` / ``needs_check`` / ``error`` with
  ``Nats-Msg-Id = result:<job_id>:<attempt>``, retrying through NATS outages until the deadline;
* logs ``worker_ready`` once its subscription is on the server;
* stops gracefully: no new requests (the subscription is drained, so the queue group's other
  instances get them), the jobs in flight get ``shutdown_grace_seconds`` to finish and publish,
  the rest are abandoned unanswered and logged (``job_abandoned``); the core times them out.

``recognition_worker.testing`` holds stand-in recognizers and a result collector for tests.
"""

from recognition_worker.dedupe import JobEntry, JobLedger, Outgoing
from recognition_worker.publisher import Publisher
from recognition_worker.recognition import Recognition, RecognitionError, RecognizeFn, Recognizer
from recognition_worker.results import (
    EncodedResult,
    Envelopes,
    recognize_to_result,
    result_file_payload,
)
from recognition_worker.sandbox import Sandbox
from recognition_worker.settings import WorkerSettings, default_concurrency
from recognition_worker.worker import JobIds, Worker, WorkerStats, stop_bound

__all__ = [
    "EncodedResult",
    "Envelopes",
    "JobEntry",
    "JobIds",
    "JobLedger",
    "Outgoing",
    "Publisher",
    "Recognition",
    "RecognitionError",
    "RecognizeFn",
    "Recognizer",
    "Sandbox",
    "Worker",
    "WorkerSettings",
    "WorkerStats",
    "default_concurrency",
    "recognize_to_result",
    "result_file_payload",
    "stop_bound",
]
