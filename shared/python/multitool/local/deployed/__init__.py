"""What the command line does to a deployed stack: sign in for a script's token, erase one user's
data, the certificate of the Google service account key held in KMS.
"""
