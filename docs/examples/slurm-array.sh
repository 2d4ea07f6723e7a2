#!/bin/bash
# A Slurm job array: 4 tasks, each one shard of the manifest (--shard auto/4 reads
# SLURM_ARRAY_TASK_ID). Submit with: sbatch docs/examples/slurm-array.sh
# The manifest was made once: catctl batch --list --recursive s3://cats-in/uploads/ > list.txt
# (then uploaded to s3://cats-in/list.txt). A task that exits 75 (object storage or the
# network failed) is worth running again: submit the array again, and --skip-existing
# redoes only what is missing. 65 (bad images) is not; 77 means the credentials.
# Run here: Tests/CLITests/SlurmArrayTests.swift submits this script to a one-node Slurm
# over SeaweedFS, with CATCTL_MANIFEST, CATCTL_OUTPUT and CATCTL_FILTER set.
#SBATCH --job-name=catctl-batch
#SBATCH --array=1-4
#SBATCH --cpus-per-task=1
#SBATCH --output=catctl-%A_%a.log
exec catctl batch --filter "${CATCTL_FILTER:-sepia}" --skip-existing --shard auto/4 \
  --manifest "${CATCTL_MANIFEST:-s3://cats-in/list.txt}" \
  --output-dir "${CATCTL_OUTPUT:-s3://cats-out/sepia/}"
