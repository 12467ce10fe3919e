"""latelake correction path on Airflow (example DAGs).

Every task runs a spark-submit entry point of the bundle jar (Spark provided on the cluster).
Each job is safe to re-run, so Airflow retries are harmless. Exit codes (io.latelake.core.ExitCode)
and what the tasks do with them:

  0  ok                                                              -> success
  1  runtime failure (Spark, storage, a commit that kept conflicting) -> fail, retried
  2  bad usage or config (bad date, unknown metric, missing table,
     first `correct` without --since); nothing was written           -> fail, never retried
  3  audit found differences beyond lake.correction.audit-tolerance   -> fail, never retried;
                                                                          on_failure_callback alerts

The first `correct` run needs `--since <yyyy-MM-dd>`: trigger `latelake_correct_hourly` once with
conf {"since": "2024-01-01"}; later runs read monitoring.correction_state.
"""
import subprocess
from datetime import datetime, timedelta

from airflow import DAG
from airflow.exceptions import AirflowFailException
from airflow.operators.python import PythonOperator

LATELAKE_HOME = "/opt/latelake"
JAR = f"{LATELAKE_HOME}/bundle/target/latelake-bundle.jar"
CONF = f"{LATELAKE_HOME}/conf/cluster.conf"
SPARK_SUBMIT = ["/opt/spark/bin/spark-submit", "--master", "yarn", "--deploy-mode", "client",
                "--conf", "spark.sql.session.timeZone=UTC"]

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_AUDIT = 0, 1, 2, 3


def run_latelake(main_class: str, args: list) -> None:
    """Runs one entry point; maps its exit code onto Airflow's retry semantics."""
    cmd = SPARK_SUBMIT + ["--class", f"io.latelake.correction.{main_class}", JAR,
                          "--config", CONF] + [a for a in args if a]
    print("running:", " ".join(cmd))
    rc = subprocess.run(cmd, check=False).returncode
    if rc == EXIT_OK:
        return
    if rc == EXIT_USAGE:
        raise AirflowFailException(f"{main_class}: bad usage or config (exit 2), nothing written")
    if rc == EXIT_AUDIT:
        raise AirflowFailException(
            f"{main_class}: differences beyond tolerance (exit 3), see monitoring.recompute_audit")
    raise RuntimeError(f"{main_class} failed with exit code {rc}")  # 1 and others: retried


def alert(context):
    """Hook alerting here (Slack, PagerDuty, e-mail)."""
    print("latelake task failed:", context["task_instance"].task_id, context.get("exception"))


default_args = {
    "owner": "data-eng",
    "retries": 2,
    "retry_delay": timedelta(minutes=10),
    "retry_exponential_backoff": True,
    "on_failure_callback": alert,
}

with DAG(
    dag_id="latelake_correct_hourly",
    description="Restate closed late windows in gold from bronze",
    schedule="7 * * * *",
    start_date=datetime(2024, 1, 1),
    catchup=False,
    max_active_runs=1,  # one correction at a time; the state table orders runs
    default_args=default_args,
    tags=["latelake"],
) as correct_dag:
    PythonOperator(
        task_id="correct",
        python_callable=run_latelake,
        op_kwargs={
            "main_class": "CorrectMain",
            # Set on the first, manual run only; the job validates it (exit 2 when not a date).
            "args": ["{{ '--since=' ~ dag_run.conf['since'] "
                     "if dag_run and dag_run.conf.get('since') else '' }}"],
        },
    )

with DAG(
    dag_id="latelake_nightly",
    description="Rebuild settled daily totals, cascade the rollups, audit gold against bronze",
    schedule="15 2 * * *",
    start_date=datetime(2024, 1, 1),
    catchup=False,
    max_active_runs=1,
    default_args=default_args,
    tags=["latelake"],
) as nightly_dag:
    # The last 7 event dates up to the run's logical date; the jobs re-validate them (yyyy-MM-dd).
    window = ["--from", "{{ macros.ds_add(ds, -6) }}", "--to", "{{ ds }}"]
    rebuild = PythonOperator(task_id="rebuild", python_callable=run_latelake,
                             op_kwargs={"main_class": "RebuildMain", "args": window})
    cascade = PythonOperator(task_id="cascade", python_callable=run_latelake,
                             op_kwargs={"main_class": "CascadeMain", "args": window})
    audit = PythonOperator(task_id="audit", python_callable=run_latelake, retries=0,
                           op_kwargs={"main_class": "AuditMain", "args": window})
    rebuild >> cascade >> audit
