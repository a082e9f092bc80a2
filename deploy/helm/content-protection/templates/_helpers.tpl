{{- define "cp.labels" -}}
app.kubernetes.io/part-of: content-protection
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}
