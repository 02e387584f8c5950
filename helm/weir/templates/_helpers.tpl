{{/* The chart's name, for labels. */}}
{{- define "weir.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The full name: release-chart, or the release alone when it already contains the chart name. */}}
{{- define "weir.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "weir.selectorLabels" -}}
app.kubernetes.io/name: {{ include "weir.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "weir.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{ include "weir.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "weir.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "weir.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/*
The job file: the job from values with what the chart owns set over it: instance-id from the pod
name (POD_NAME, downward API), the state directory on its volume, the HTTP port of the probes.
*/}}
{{- define "weir.job" -}}
{{- if not .Values.job.application -}}
{{- fail "job.application is required: the job's name (consumer group, transactional-id prefix)" -}}
{{- end -}}
{{- if not .Values.job.pipeline -}}
{{- fail "job.pipeline is required: the steps of the job" -}}
{{- end -}}
{{- $job := deepCopy .Values.job -}}
{{- $_ := set $job "instance-id" "${POD_NAME}" -}}
{{- $processing := default dict (get $job "processing") -}}
{{- $state := default dict (get $processing "state") -}}
{{- $_ := set $state "dir" .Values.state.mountPath -}}
{{- $_ := set $processing "state" $state -}}
{{- $_ := set $job "processing" $processing -}}
{{- $_ := set $job "http" (dict "port" (int .Values.http.port)) -}}
{{- toYaml $job -}}
{{- end -}}

{{/* The container's environment, the same for the instances and the rescale Job. */}}
{{- define "weir.env" -}}
# The pod's name is the instance-id (the job file says instance-id: ${POD_NAME}).
- name: POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: WEIR_LOG_FORMAT
  value: {{ .Values.logFormat | quote }}
- name: WEIR_LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
{{- with .Values.javaOptions }}
- name: JAVA_OPTS
  value: {{ . | quote }}
{{- end }}
{{- range .Values.secretEnv }}
- name: {{ required "secretEnv[].name is required" .name }}
  valueFrom:
    secretKeyRef:
      name: {{ required "secretEnv[].secretName is required" .secretName }}
      key: {{ required "secretEnv[].key is required" .key }}
{{- end }}
{{- with .Values.env }}
{{ toYaml . }}
{{- end }}
{{- end -}}
